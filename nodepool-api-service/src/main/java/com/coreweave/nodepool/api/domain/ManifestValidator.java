package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.schema.resource.KubeStatus.Cause.FORBIDDEN;
import static com.coreweave.nodepool.schema.resource.KubeStatus.Cause.INVALID;
import static com.coreweave.nodepool.schema.resource.KubeStatus.Cause.NOT_SUPPORTED;
import static com.coreweave.nodepool.schema.resource.KubeStatus.Cause.REQUIRED;
import static com.coreweave.nodepool.schema.resource.KubeStatus.Cause.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.KubeStatus.Cause.TYPE_INVALID;

import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.KubeStatus.Cause;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.NodeConfigurationUpdateStrategy;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The structural rules of a NodePool manifest, checked on the JSON tree before anything is bound so that every bad
 * field is reported at once with its path (as a Kubernetes API server does): types, enums, required fields,
 * negative counts, name/label/annotation/taint syntax, unknown fields, and any attempt to set {@code status}.
 * Rules that need the platform's knowledge (the catalogue) are {@link PlatformValidator}'s.
 */
public final class ManifestValidator {

  private static final Set<String> TOP = Set.of("apiVersion", "kind", "metadata", "spec", "status");
  private static final Set<String> METADATA = Set.of("name", "namespace", "uid", "resourceVersion", "generation",
      "creationTimestamp", "deletionTimestamp", "labels", "annotations");
  private static final Set<String> SPEC = Set.of("computeClass", "instanceType", "targetNodes", "minNodes",
      "maxNodes", "nodeLabels", "nodeAnnotations", "nodeTaints", "image", "gpu", "autoscaling", "lifecycle",
      "nodeConfigurationUpdateStrategy", "region");
  private static final Set<String> COMPUTE_CLASSES = Set.of("default", "spot", "Spot");
  private static final int MAX_ANNOTATIONS_BYTES = 256 * 1024;

  private final List<Cause> causes = new ArrayList<>();

  private ManifestValidator() {
  }

  /** Every structural problem of {@code manifest}; empty when it is a well-formed NodePool. */
  public static List<Cause> validate(JsonNode manifest) {
    ManifestValidator v = new ManifestValidator();
    v.root(manifest);
    return List.copyOf(v.causes);
  }

  private void root(JsonNode root) {
    if (root == null || !root.isObject()) {
      add(TYPE_INVALID, "must be a NodePool object", "");
      return;
    }
    unknownFields(root, TOP, "");
    requiredString(root, "apiVersion", "apiVersion").ifPresentAnd(v -> !v.equals(NodePool.API_VERSION),
        v -> add(NOT_SUPPORTED, "supported values: \"" + NodePool.API_VERSION + "\"", "apiVersion"));
    requiredString(root, "kind", "kind").ifPresentAnd(v -> !v.equals(NodePool.KIND),
        v -> add(NOT_SUPPORTED, "supported values: \"" + NodePool.KIND + "\"", "kind"));
    if (root.has("status") && !root.get("status").isNull()) {
      add(FORBIDDEN, "status is set by the platform and cannot be written", "status");
    }
    JsonNode metadata = object(root, "metadata", "metadata", true);
    if (metadata != null) {
      metadata(metadata);
    }
    JsonNode spec = object(root, "spec", "spec", true);
    if (spec != null) {
      spec(spec);
    }
  }

  private void metadata(JsonNode metadata) {
    unknownFields(metadata, METADATA, "metadata.");
    requiredString(metadata, "name", "metadata.name").ifPresentAnd(n -> KubeSyntax.dnsSubdomainError(n) != null,
        n -> add(INVALID, "Invalid value: \"" + n + "\": " + KubeSyntax.dnsSubdomainError(n), "metadata.name"));
    optionalString(metadata, "namespace", "metadata.namespace").ifPresentAnd(ns -> !ns.isEmpty(),
        ns -> add(FORBIDDEN, "NodePool is cluster-scoped: namespace must be empty", "metadata.namespace"));
    optionalString(metadata, "uid", "metadata.uid");
    optionalString(metadata, "resourceVersion", "metadata.resourceVersion");
    timestamp(metadata, "creationTimestamp");
    timestamp(metadata, "deletionTimestamp");
    JsonNode generation = metadata.get("generation");
    if (generation != null && !generation.isNull()
        && (!generation.isIntegralNumber() || !generation.canConvertToLong())) {
      add(TYPE_INVALID, "Invalid value: " + generation + ": must be an integer", "metadata.generation");
    }
    labels(metadata, "labels", "metadata.labels");
    annotations(metadata, "annotations", "metadata.annotations");
  }

  private void spec(JsonNode spec) {
    unknownFields(spec, SPEC, "spec.");
    optionalString(spec, "computeClass", "spec.computeClass").ifPresentAnd(c -> !COMPUTE_CLASSES.contains(c),
        c -> add(NOT_SUPPORTED, "Unsupported value: \"" + c + "\": supported values: \"default\", \"spot\"",
            "spec.computeClass"));
    requiredString(spec, "instanceType", "spec.instanceType").ifPresentAnd(String::isBlank,
        t -> add(REQUIRED, "Required value", "spec.instanceType"));
    count(spec, "targetNodes", true);
    count(spec, "minNodes", false);
    count(spec, "maxNodes", false);
    labels(spec, "nodeLabels", "spec.nodeLabels");
    annotations(spec, "nodeAnnotations", "spec.nodeAnnotations");
    taints(spec);
    JsonNode image = object(spec, "image", "spec.image", false);
    if (image != null) {
      unknownFields(image, Set.of("kernel", "name", "releaseTrain"), "spec.image.");
      optionalString(image, "kernel", "spec.image.kernel");
      optionalString(image, "name", "spec.image.name");
      enumString(image, "releaseTrain", "spec.image.releaseTrain", List.of(Image.STABLE, Image.LATEST));
    }
    JsonNode gpu = object(spec, "gpu", "spec.gpu", false);
    if (gpu != null) {
      unknownFields(gpu, Set.of("version"), "spec.gpu.");
      optionalString(gpu, "version", "spec.gpu.version");
    }
    bool(spec, "autoscaling", "spec.autoscaling");
    JsonNode lifecycle = object(spec, "lifecycle", "spec.lifecycle", false);
    if (lifecycle != null) {
      unknownFields(lifecycle, Set.of("scaleDownStrategy", "disableUnhealthyNodeEviction"), "spec.lifecycle.");
      enumString(lifecycle, "scaleDownStrategy", "spec.lifecycle.scaleDownStrategy",
          List.of(Lifecycle.IDLE_ONLY, Lifecycle.PREFER_IDLE));
      bool(lifecycle, "disableUnhealthyNodeEviction", "spec.lifecycle.disableUnhealthyNodeEviction");
    }
    JsonNode strategy = object(spec, "nodeConfigurationUpdateStrategy", "spec.nodeConfigurationUpdateStrategy", false);
    if (strategy != null) {
      unknownFields(strategy, Set.of("type"), "spec.nodeConfigurationUpdateStrategy.");
      enumString(strategy, "type", "spec.nodeConfigurationUpdateStrategy.type", List.of(
          NodeConfigurationUpdateStrategy.MANUAL, NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE,
          NodeConfigurationUpdateStrategy.ALWAYS));
    }
    optionalString(spec, "region", "spec.region").ifPresentAnd(z -> KubeSyntax.zoneError(z) != null,
        z -> add(INVALID, "Invalid value: \"" + z + "\": " + KubeSyntax.zoneError(z), "spec.region"));
  }

  /** A server-set timestamp a client may echo back: ignored, but it must still be an RFC 3339 timestamp. */
  private void timestamp(JsonNode metadata, String field) {
    optionalString(metadata, field, "metadata." + field).ifPresentAnd(t -> {
      try {
        java.time.OffsetDateTime.parse(t);
        return false;
      } catch (java.time.format.DateTimeParseException e) {
        return true;
      }
    }, t -> add(TYPE_INVALID, "Invalid value: \"" + t + "\": must be an RFC 3339 timestamp", "metadata." + field));
  }

  private void count(JsonNode spec, String field, boolean required) {
    String path = "spec." + field;
    JsonNode value = spec.get(field);
    if (value == null || value.isNull()) {
      if (required) {
        add(REQUIRED, "Required value", path);
      }
      return;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be an integer", path);
    } else if (value.intValue() < 0) {
      add(INVALID, "Invalid value: " + value.intValue() + ": must be greater than or equal to 0", path);
    }
  }

  private void taints(JsonNode spec) {
    JsonNode taints = spec.get("nodeTaints");
    if (taints == null || taints.isNull()) {
      return;
    }
    if (!taints.isArray()) {
      add(TYPE_INVALID, "must be a list of taints", "spec.nodeTaints");
      return;
    }
    for (int i = 0; i < taints.size(); i++) {
      String path = "spec.nodeTaints[" + i + "]";
      JsonNode taint = taints.get(i);
      if (!taint.isObject()) {
        add(TYPE_INVALID, "must be a taint {key, value, effect}", path);
        continue;
      }
      unknownFields(taint, Set.of("key", "value", "effect"), path + ".");
      requiredString(taint, "key", path + ".key").ifPresentAnd(k -> KubeSyntax.qualifiedNameError(k) != null,
          k -> add(INVALID, "Invalid value: \"" + k + "\": " + KubeSyntax.qualifiedNameError(k), path + ".key"));
      optionalString(taint, "value", path + ".value").ifPresentAnd(v -> KubeSyntax.labelValueError(v) != null,
          v -> add(INVALID, "Invalid value: \"" + v + "\": " + KubeSyntax.labelValueError(v), path + ".value"));
      requiredString(taint, "effect", path + ".effect").ifPresentAnd(e -> !Taint.EFFECTS.contains(e),
          e -> add(NOT_SUPPORTED, "Unsupported value: \"" + e + "\": supported values: \"NoExecute\", "
              + "\"NoSchedule\", \"PreferNoSchedule\"", path + ".effect"));
    }
  }

  private void labels(JsonNode parent, String field, String path) {
    stringMap(parent, field, path, (key, value) -> {
      String keyError = KubeSyntax.qualifiedNameError(key);
      if (keyError != null) {
        add(INVALID, "Invalid value: \"" + key + "\": " + keyError, path);
      }
      String valueError = KubeSyntax.labelValueError(value);
      if (valueError != null) {
        add(INVALID, "Invalid value: \"" + value + "\": " + valueError, path + "[" + key + "]");
      }
    });
  }

  private void annotations(JsonNode parent, String field, String path) {
    int[] size = {0};
    stringMap(parent, field, path, (key, value) -> {
      String keyError = KubeSyntax.qualifiedNameError(key);
      if (keyError != null) {
        add(INVALID, "Invalid value: \"" + key + "\": " + keyError, path);
      }
      size[0] += key.length() + value.length();
    });
    if (size[0] > MAX_ANNOTATIONS_BYTES) {
      add(TOO_LONG, "Too long: must have at most " + MAX_ANNOTATIONS_BYTES + " bytes", path);
    }
  }

  private void stringMap(JsonNode parent, String field, String path,
                         BiConsumer<String, String> check) {
    JsonNode map = parent.get(field);
    if (map == null || map.isNull()) {
      return;
    }
    if (!map.isObject()) {
      add(TYPE_INVALID, "must be a map of string keys to string values", path);
      return;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (!entry.getValue().isTextual()) {
        add(TYPE_INVALID, "Invalid value: " + entry.getValue() + ": must be a string", path + "[" + entry.getKey()
            + "]");
        continue;
      }
      check.accept(entry.getKey(), entry.getValue().textValue());
    }
  }

  private void unknownFields(JsonNode object, Set<String> known, String prefix) {
    object.fieldNames().forEachRemaining(name -> {
      if (!known.contains(name)) {
        add(INVALID, "unknown field \"" + name + "\"", prefix + name);
      }
    });
  }

  private JsonNode object(JsonNode parent, String field, String path, boolean required) {
    JsonNode value = parent.get(field);
    if (value == null || value.isNull()) {
      if (required) {
        add(REQUIRED, "Required value", path);
      }
      return null;
    }
    if (!value.isObject()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be an object", path);
      return null;
    }
    return value;
  }

  private void bool(JsonNode parent, String field, String path) {
    JsonNode value = parent.get(field);
    if (value != null && !value.isNull() && !value.isBoolean()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be a boolean", path);
    }
  }

  private void enumString(JsonNode parent, String field, String path, List<String> allowed) {
    optionalString(parent, field, path).ifPresentAnd(v -> !allowed.contains(v),
        v -> add(NOT_SUPPORTED, "Unsupported value: \"" + v + "\": supported values: \""
            + String.join("\", \"", allowed) + "\"", path));
  }

  private Found requiredString(JsonNode parent, String field, String path) {
    JsonNode value = parent.get(field);
    if (value == null || value.isNull()) {
      add(REQUIRED, "Required value", path);
      return Found.NONE;
    }
    return string(value, path);
  }

  private Found optionalString(JsonNode parent, String field, String path) {
    JsonNode value = parent.get(field);
    return value == null || value.isNull() ? Found.NONE : string(value, path);
  }

  private Found string(JsonNode value, String path) {
    if (!value.isTextual()) {
      add(TYPE_INVALID, "Invalid value: " + value + ": must be a string", path);
      return Found.NONE;
    }
    return new Found(value.textValue());
  }

  private void add(String reason, String message, String field) {
    causes.add(new Cause(reason, message, field));
  }

  /** A string field that was present and of the right type, to check further. */
  private record Found(String value) {
    static final Found NONE = new Found(null);

    void ifPresentAnd(java.util.function.Predicate<String> bad, java.util.function.Consumer<String> report) {
      if (value != null && bad.test(value)) {
        report.accept(value);
      }
    }
  }
}
