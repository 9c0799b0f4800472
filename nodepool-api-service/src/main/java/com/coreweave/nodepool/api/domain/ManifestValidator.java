package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.schema.resource.Statuses.FORBIDDEN;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.NOT_SUPPORTED;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The structural rules of a NodePool manifest, checked on the JSON tree before anything is bound so that every bad
 * field is reported at once with its path, as a Kubernetes API server does. The spec is checked against the
 * CustomResourceDefinition's schema ({@link NodePoolDefinition}: types, enums, required fields, minimums, patterns,
 * unknown fields); metadata, which a CRD's schema leaves to the API server, and the label, annotation and taint
 * syntax that a schema cannot say are checked here. {@code status} is ignored: it is a subresource the platform
 * writes. Rules that need the platform's knowledge (the catalogue) are {@link PlatformValidator}'s.
 */
public final class ManifestValidator {

  private static final Set<String> METADATA = Set.of("name", "namespace", "uid", "resourceVersion", "generation",
      "creationTimestamp", "deletionTimestamp", "labels", "annotations", "managedFields");
  private static final int MAX_ANNOTATIONS_BYTES = 256 * 1024;
  /** Kubernetes syntax the schema cannot express, by schema path ({@code []} stands for any list index). */
  private static final Map<String, BiFunction<String, String, String>> SYNTAX = Map.of(
      "spec.nodeTaints[].key", (key, value) -> KubeSyntax.qualifiedNameError(value),
      "spec.nodeTaints[].value", (key, value) -> KubeSyntax.labelValueError(value));

  /** What a write asked for unknown fields, as Kubernetes' {@code fieldValidation} parameter says it. */
  public enum FieldValidation {
    /** Unknown fields are errors: the default here, and what kubectl's {@code --validate=strict} asks for. */
    Strict,
    /** Unknown fields are dropped, each with a warning. */
    Warn,
    /** Unknown fields are dropped silently. */
    Ignore;

    /** The mode a {@code fieldValidation} query parameter names; Strict when absent. */
    public static FieldValidation of(String parameter) {
      if (parameter == null || parameter.isEmpty()) {
        return Strict;
      }
      for (FieldValidation mode : values()) {
        if (mode.name().equalsIgnoreCase(parameter)) {
          return mode;
        }
      }
      throw new IllegalArgumentException("fieldValidation must be Strict, Warn or Ignore, not \"" + parameter + "\"");
    }
  }

  /** The manifest as it is to be stored (no status; no unknown fields unless Strict), its errors and warnings. */
  public record Checked(JsonNode manifest, List<StatusCause> causes, List<String> warnings) {
  }

  private final FieldValidation mode;
  private final List<StatusCause> causes = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  private ManifestValidator(FieldValidation mode) {
    this.mode = mode;
  }

  /** Every structural problem of {@code manifest}, unknown fields included; empty when it is well formed. */
  public static List<StatusCause> validate(JsonNode manifest) {
    return check(manifest, FieldValidation.Strict).causes();
  }

  public static Checked check(JsonNode manifest, FieldValidation mode) {
    ManifestValidator v = new ManifestValidator(mode);
    if (manifest == null || !manifest.isObject()) {
      v.add(TYPE_INVALID, "must be a NodePool object", "");
      return new Checked(manifest, v.causes, v.warnings);
    }
    ObjectNode copy = manifest.deepCopy();
    copy.remove("status");
    v.value(copy, NodePoolDefinition.schema(), "");
    return new Checked(copy, List.copyOf(v.causes), List.copyOf(v.warnings));
  }

  private void value(JsonNode value, JSONSchemaProps schema, String path) {
    if (path.equals("metadata")) {
      metadata(value);
      return;
    }
    switch (schema.getType()) {
      case "object" -> object(value, schema, path);
      case "array" -> array(value, schema, path);
      case "string" -> string(value, schema, path);
      case "integer" -> integer(value, schema, path);
      case "boolean" -> {
        if (!value.isBoolean()) {
          add(TYPE_INVALID, "Invalid value: " + value + ": must be a boolean", path);
        }
      }
      default -> throw new IllegalStateException("the NodePool schema has an unknown type at " + path);
    }
  }

  private void object(JsonNode value, JSONSchemaProps schema, String path) {
    if (schema.getAdditionalProperties() != null && schema.getAdditionalProperties().getSchema() != null) {
      stringMap(value, path);
      return;
    }
    if (!value.isObject()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be an object", path);
      return;
    }
    Map<String, JSONSchemaProps> properties = schema.getProperties() == null ? Map.of() : schema.getProperties();
    for (String required : schema.getRequired() == null ? List.<String>of() : schema.getRequired()) {
      JsonNode field = value.get(required);
      if (field == null || field.isNull() || (field.isTextual() && field.textValue().isBlank()
          && "string".equals(properties.get(required).getType()))) {
        add(REQUIRED, "Required value", join(path, required));
      }
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String fieldPath = join(path, field.getKey());
      JSONSchemaProps fieldSchema = properties.get(field.getKey());
      if (fieldSchema == null) {
        unknown(it, fieldPath);
      } else if (!field.getValue().isNull() && !hasCause(fieldPath)) {
        value(field.getValue(), fieldSchema, fieldPath);
      }
    }
    if (path.equals("spec")) {
      labels(value.get("nodeLabels"), "spec.nodeLabels");
      annotations(value.get("nodeAnnotations"), "spec.nodeAnnotations");
    }
  }

  private void unknown(Iterator<Map.Entry<String, JsonNode>> field, String path) {
    switch (mode) {
      case Strict -> add(INVALID, "unknown field \"" + path.substring(path.lastIndexOf('.') + 1) + "\"", path);
      case Warn -> {
        warnings.add("unknown field \"" + path + "\"");
        field.remove();
      }
      case Ignore -> field.remove();
    }
  }

  private void array(JsonNode value, JSONSchemaProps schema, String path) {
    if (!value.isArray()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be a list", path);
      return;
    }
    for (int i = 0; i < value.size(); i++) {
      value(value.get(i), schema.getItems().getSchema(), path + "[" + i + "]");
    }
  }

  private void string(JsonNode value, JSONSchemaProps schema, String path) {
    if (!value.isTextual()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be a string", path);
      return;
    }
    String text = value.textValue();
    if (schema.getEnum() != null && !schema.getEnum().isEmpty() && schema.getEnum().stream().noneMatch(e -> e.asText().equals(text))) {
      add(NOT_SUPPORTED, "Unsupported value: \"" + text + "\": supported values: " + schema.getEnum().stream()
          .map(e -> "\"" + e.asText() + "\"").collect(Collectors.joining(", ")), path);
    } else if (schema.getPattern() != null && !text.matches(schema.getPattern())) {
      add(INVALID, "Invalid value: \"" + text + "\": must match the regular expression '" + schema.getPattern()
          + "'", path);
    } else {
      var syntax = SYNTAX.get(path.replaceAll("\\[\\d+]", "[]"));
      String error = syntax == null ? null : syntax.apply(path, text);
      if (error != null) {
        add(INVALID, "Invalid value: \"" + text + "\": " + error, path);
      }
    }
  }

  private void integer(JsonNode value, JSONSchemaProps schema, String path) {
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be an integer", path);
    } else if (schema.getMinimum() != null && value.intValue() < schema.getMinimum()) {
      add(INVALID, "Invalid value: " + value.intValue() + ": must be greater than or equal to "
          + schema.getMinimum().intValue(), path);
    }
  }

  /** ObjectMeta: a CRD's schema leaves it to the API server, which knows its fields and their syntax. */
  private void metadata(JsonNode metadata) {
    if (!metadata.isObject()) {
      add(TYPE_INVALID, "Invalid value: " + metadata + ": must be an object", "metadata");
      return;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = metadata.fields(); it.hasNext(); ) {
      String field = it.next().getKey();
      if (!METADATA.contains(field)) {
        unknown(it, "metadata." + field);
      }
    }
    String name = text(metadata, "name", "metadata.name");
    if (name == null && !hasCause("metadata.name")) {
      add(REQUIRED, "Required value", "metadata.name");
    } else if (name != null && KubeSyntax.dnsSubdomainError(name) != null) {
      add(INVALID, "Invalid value: \"" + name + "\": " + KubeSyntax.dnsSubdomainError(name), "metadata.name");
    }
    String namespace = text(metadata, "namespace", "metadata.namespace");
    if (namespace != null && !namespace.isEmpty()) {
      add(FORBIDDEN, "NodePool is cluster-scoped: namespace must be empty", "metadata.namespace");
    }
    text(metadata, "uid", "metadata.uid");
    text(metadata, "resourceVersion", "metadata.resourceVersion");
    timestamp(metadata, "creationTimestamp");
    timestamp(metadata, "deletionTimestamp");
    JsonNode generation = metadata.get("generation");
    if (generation != null && !generation.isNull()
        && (!generation.isIntegralNumber() || !generation.canConvertToLong())) {
      add(TYPE_INVALID, "Invalid value: " + generation + ": must be an integer", "metadata.generation");
    }
    JsonNode managedFields = metadata.get("managedFields");
    if (managedFields != null && !managedFields.isNull() && !managedFields.isArray()) {
      add(TYPE_INVALID, "Invalid value: " + managedFields + ": must be a list", "metadata.managedFields");
    }
    if (stringMap(metadata.get("labels"), "metadata.labels")) {
      labels(metadata.get("labels"), "metadata.labels");
    }
    if (stringMap(metadata.get("annotations"), "metadata.annotations")) {
      annotations(metadata.get("annotations"), "metadata.annotations");
    }
  }

  /** A server-set timestamp a client may echo back: ignored, but it must still be an RFC 3339 timestamp. */
  private void timestamp(JsonNode metadata, String field) {
    String value = text(metadata, field, "metadata." + field);
    if (value != null) {
      try {
        java.time.OffsetDateTime.parse(value);
      } catch (java.time.format.DateTimeParseException e) {
        add(TYPE_INVALID, "Invalid value: \"" + value + "\": must be an RFC 3339 timestamp", "metadata." + field);
      }
    }
  }

  /** Whether {@code map} is absent or a map of strings; reports what is not. */
  private boolean stringMap(JsonNode map, String path) {
    if (map == null || map.isNull()) {
      return false;
    }
    if (!map.isObject()) {
      add(TYPE_INVALID, "must be a map of string keys to string values", path);
      return false;
    }
    boolean strings = true;
    for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (!entry.getValue().isTextual()) {
        add(TYPE_INVALID, "Invalid value: " + entry.getValue() + ": must be a string",
            path + "[" + entry.getKey() + "]");
        strings = false;
      }
    }
    return strings;
  }

  private void labels(JsonNode labels, String path) {
    if (labels == null || !labels.isObject()) {
      return;
    }
    labels.fields().forEachRemaining(entry -> {
      String keyError = KubeSyntax.qualifiedNameError(entry.getKey());
      if (keyError != null) {
        add(INVALID, "Invalid value: \"" + entry.getKey() + "\": " + keyError, path);
      }
      String valueError = entry.getValue().isTextual() ? KubeSyntax.labelValueError(entry.getValue().textValue())
          : null;
      if (valueError != null) {
        add(INVALID, "Invalid value: \"" + entry.getValue().textValue() + "\": " + valueError,
            path + "[" + entry.getKey() + "]");
      }
    });
  }

  private void annotations(JsonNode annotations, String path) {
    if (annotations == null || !annotations.isObject()) {
      return;
    }
    int[] size = {0};
    annotations.fields().forEachRemaining(entry -> {
      String keyError = KubeSyntax.qualifiedNameError(entry.getKey());
      if (keyError != null) {
        add(INVALID, "Invalid value: \"" + entry.getKey() + "\": " + keyError, path);
      }
      size[0] += entry.getKey().length() + entry.getValue().asText().length();
    });
    if (size[0] > MAX_ANNOTATIONS_BYTES) {
      add(TOO_LONG, "Too long: must have at most " + MAX_ANNOTATIONS_BYTES + " bytes", path);
    }
  }

  /** A string field's value, null when absent; a value that is not a string is reported. */
  private String text(JsonNode parent, String field, String path) {
    JsonNode value = parent.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be a string", path);
      return null;
    }
    return value.textValue();
  }

  private boolean hasCause(String field) {
    return causes.stream().anyMatch(c -> c.getField().equals(field));
  }

  private static String join(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  private void add(String reason, String message, String field) {
    causes.add(Statuses.cause(reason, message, field));
  }
}
