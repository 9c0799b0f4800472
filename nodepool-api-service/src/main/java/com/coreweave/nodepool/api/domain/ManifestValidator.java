package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.schema.resource.Statuses.FORBIDDEN;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.NOT_SUPPORTED;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_MANY;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.coreweave.nodepool.api.kube.JsonSize;
import com.coreweave.nodepool.api.kube.KubeSyntax;
import com.coreweave.nodepool.api.kube.NodePoolDefinition;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.CronSchedule;
import com.coreweave.nodepool.schema.resource.Disruption;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The structural rules of a NodePool manifest, checked on the JSON tree before anything is bound so that every bad
 * field is reported at once with its path, as a Kubernetes API server does. The spec is checked against the
 * CustomResourceDefinition's schema ({@link NodePoolDefinition}: types, enums, required fields, minimums and maximums,
 * longest strings and lists, patterns, unknown fields); metadata, which a CRD's schema leaves to the API server, and
 * the label, annotation and taint syntax that a schema cannot say are checked here, and so are the sizes of labels and
 * annotations, and a disruption budget's cron schedule, its durations and the fields it needs in pairs. {@code status}
 * is ignored: it is a subresource the platform writes. Rules that need the platform's knowledge (the catalogue) are
 * {@link PlatformValidator}'s.
 *
 * <p>One pass over the tree, each value looked at once: the work and the answer grow with the manifest, never with the
 * square of its bad items, and at most {@link Limits#MAX_CAUSES} causes are listed ({@link FieldErrors}).
 */
public final class ManifestValidator {

    private static final Set<String> METADATA = Set.of(
            "name",
            "namespace",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "labels",
            "annotations",
            "managedFields");
    /**
     * The maps of labels and annotations, in the order their sizes add up (the cause names where the sum went over).
     */
    private static final List<String> LABELS_AND_ANNOTATIONS =
            List.of("metadata.labels", "metadata.annotations", "spec.nodeLabels", "spec.nodeAnnotations");

    private static final Set<String> LABELS = Set.of("metadata.labels", "spec.nodeLabels");
    /** What every node of the pool carries. */
    private static final List<String> NODE_METADATA = List.of("spec.nodeLabels", "spec.nodeAnnotations");

    private static final String BUDGETS = "spec.disruption.budgets";
    /** Kubernetes syntax the schema cannot express, by schema path ({@code []} stands for any list index). */
    private static final Map<String, Function<String, String>> SYNTAX = Map.of(
            "spec.nodeTaints[].key",
            KubeSyntax::qualifiedNameError,
            "spec.nodeTaints[].value",
            KubeSyntax::labelValueError,
            BUDGETS + "[].schedule",
            CronSchedule::error,
            BUDGETS + "[].duration",
            d -> Disruption.durationError(d, Disruption.MAX_DURATION),
            BUDGETS + "[].window",
            w -> Disruption.durationError(w, Disruption.MAX_WINDOW),
            "spec.disruption.consolidateAfter",
            d -> Disruption.durationError(d, Disruption.MAX_DURATION));
    /** The rules of each string of the schema, by its node in the schema: looked up, not worked out, per value. */
    private static final Map<JSONSchemaProps, StringRule> STRINGS = strings();

    /** What the schema says of a string besides its length: the values it may take, its pattern, its syntax. */
    private record StringRule(Set<String> values, String supported, Pattern pattern, Function<String, String> syntax) {}

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
            throw new IllegalArgumentException(
                    "fieldValidation must be Strict, Warn or Ignore, not \"" + parameter + "\"");
        }
    }

    /** The manifest as it is to be stored (no status; no unknown fields unless Strict), its errors and warnings. */
    public record Checked(JsonNode manifest, FieldErrors found, List<String> warnings) {

        /** The errors as a Status lists them: at most {@link Limits#MAX_CAUSES}, then how many more. */
        public List<StatusCause> causes() {
            return found.list();
        }
    }

    private final FieldValidation mode;
    private final FieldErrors causes = new FieldErrors();
    private final List<String> warnings = new ArrayList<>();
    private int unlistedWarnings;
    /** The size of each map of labels or annotations, keys and values in UTF-8 bytes. */
    private final Map<String, Long> labelBytes = new HashMap<>();
    /** The maps every node carries, as given (when they are maps). */
    private final Map<String, JsonNode> nodeMetadata = new HashMap<>();

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
            return new Checked(manifest, v.causes, List.of());
        }
        ObjectNode copy = manifest.deepCopy();
        copy.remove("status");
        v.value(copy, NodePoolDefinition.schema(), "");
        v.budgets(copy.path("spec").path("disruption").path("budgets"));
        v.sizes();
        if (v.unlistedWarnings > 0) {
            v.warnings.add("and " + v.unlistedWarnings + " more unknown fields");
        }
        return new Checked(copy, v.causes, List.copyOf(v.warnings));
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
                    add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a boolean", path);
                }
            }
            default -> throw new IllegalStateException("the NodePool schema has an unknown type at " + path);
        }
    }

    private void object(JsonNode value, JSONSchemaProps schema, String path) {
        if (schema.getAdditionalProperties() != null
                && schema.getAdditionalProperties().getSchema() != null) {
            labelsOrAnnotations(value, path, schema.getAdditionalProperties().getSchema());
            return;
        }
        if (!value.isObject()) {
            add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be an object", path);
            return;
        }
        Map<String, JSONSchemaProps> properties = schema.getProperties() == null ? Map.of() : schema.getProperties();
        Set<String> missing = new HashSet<>();
        for (String required : schema.getRequired() == null ? List.<String>of() : schema.getRequired()) {
            JsonNode field = value.get(required);
            if (field == null
                    || field.isNull()
                    || (field.isTextual()
                            && field.textValue().isBlank()
                            && "string".equals(properties.get(required).getType()))) {
                add(REQUIRED, "Required value", join(path, required));
                missing.add(required);
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String fieldPath = join(path, field.getKey());
            JSONSchemaProps fieldSchema = properties.get(field.getKey());
            if (fieldSchema == null) {
                unknown(it, fieldPath);
            } else if (!field.getValue().isNull() && !missing.contains(field.getKey())) {
                value(field.getValue(), fieldSchema, fieldPath);
            }
        }
    }

    private void unknown(Iterator<Map.Entry<String, JsonNode>> field, String path) {
        switch (mode) {
            case Strict ->
                add(INVALID, "unknown field \"" + shown(path.substring(path.lastIndexOf('.') + 1)) + "\"", path);
            case Warn -> {
                if (warnings.size() < Limits.MAX_CAUSES) {
                    warnings.add("unknown field \"" + shown(path) + "\"");
                } else {
                    unlistedWarnings++;
                }
                field.remove();
            }
            case Ignore -> field.remove();
        }
    }

    private void array(JsonNode value, JSONSchemaProps schema, String path) {
        if (!value.isArray()) {
            add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a list", path);
            return;
        }
        if (schema.getMaxItems() != null && value.size() > schema.getMaxItems()) {
            add(TOO_MANY, "Too many: " + value.size() + ": must have at most " + schema.getMaxItems() + " items", path);
        }
        for (int i = 0; i < value.size(); i++) {
            value(value.get(i), schema.getItems().getSchema(), path + "[" + i + "]");
        }
    }

    /** Whether {@code value} is a string the schema allows; its length is checked before it is matched or shown. */
    private boolean string(JsonNode value, JSONSchemaProps schema, String path) {
        if (!value.isTextual()) {
            add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a string", path);
            return false;
        }
        String text = value.textValue();
        Long maxLength = schema.getMaxLength();
        if (maxLength != null && text.length() > maxLength && text.codePointCount(0, text.length()) > maxLength) {
            add(TOO_LONG, "Too long: must have at most " + maxLength + " characters", path);
            return false;
        }
        StringRule rule = STRINGS.get(schema);
        if (rule.values() != null && !rule.values().contains(text)) {
            add(
                    NOT_SUPPORTED,
                    "Unsupported value: \"" + shown(text) + "\": supported values: " + rule.supported(),
                    path);
            return false;
        }
        if (rule.pattern() != null && !rule.pattern().matcher(text).matches()) {
            add(
                    INVALID,
                    "Invalid value: \"" + shown(text) + "\": must match the regular expression '"
                            + rule.pattern().pattern() + "'",
                    path);
            return false;
        }
        String error = rule.syntax() == null ? null : rule.syntax().apply(text);
        if (error != null) {
            add(INVALID, "Invalid value: \"" + shown(text) + "\": " + error, path);
            return false;
        }
        return true;
    }

    private void integer(JsonNode value, JSONSchemaProps schema, String path) {
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be an integer", path);
        } else if (schema.getMinimum() != null && value.intValue() < schema.getMinimum()) {
            add(
                    INVALID,
                    "Invalid value: " + value.intValue() + ": must be greater than or equal to "
                            + schema.getMinimum().intValue(),
                    path);
        } else if (schema.getMaximum() != null && value.intValue() > schema.getMaximum()) {
            add(
                    INVALID,
                    "Invalid value: " + value.intValue() + ": must be less than or equal to "
                            + schema.getMaximum().intValue(),
                    path);
        }
    }

    /** ObjectMeta: a CRD's schema leaves it to the API server, which knows its fields and their syntax. */
    private void metadata(JsonNode metadata) {
        if (!metadata.isObject()) {
            add(TYPE_INVALID, "Invalid value: " + shown(metadata) + ": must be an object", "metadata");
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = metadata.fields(); it.hasNext(); ) {
            String field = it.next().getKey();
            if (!METADATA.contains(field)) {
                unknown(it, "metadata." + field);
            }
        }
        JsonNode nameValue = metadata.get("name");
        String name = text(metadata, "name", "metadata.name");
        if (nameValue == null || nameValue.isNull()) {
            add(REQUIRED, "Required value", "metadata.name");
        } else if (name != null && KubeSyntax.dnsSubdomainError(name) != null) {
            add(
                    INVALID,
                    "Invalid value: \"" + shown(name) + "\": " + KubeSyntax.dnsSubdomainError(name),
                    "metadata.name");
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
        if (generation != null
                && !generation.isNull()
                && (!generation.isIntegralNumber() || !generation.canConvertToLong())) {
            add(TYPE_INVALID, "Invalid value: " + shown(generation) + ": must be an integer", "metadata.generation");
        }
        JsonNode managedFields = metadata.get("managedFields");
        if (managedFields != null && !managedFields.isNull() && !managedFields.isArray()) {
            add(TYPE_INVALID, "Invalid value: " + shown(managedFields) + ": must be a list", "metadata.managedFields");
        }
        labelsOrAnnotations(metadata.get("labels"), "metadata.labels", null);
        labelsOrAnnotations(metadata.get("annotations"), "metadata.annotations", null);
    }

    /** A server-set timestamp a client may echo back: ignored, but it must still be an RFC 3339 timestamp. */
    private void timestamp(JsonNode metadata, String field) {
        String value = text(metadata, field, "metadata." + field);
        if (value != null) {
            try {
                java.time.OffsetDateTime.parse(value);
            } catch (java.time.format.DateTimeParseException e) {
                add(
                        TYPE_INVALID,
                        "Invalid value: \"" + shown(value) + "\": must be an RFC 3339 timestamp",
                        "metadata." + field);
            }
        }
    }

    /**
     * A map of labels or annotations: string values (each against {@code valueSchema} where the CRD gives one), keys of
     * Kubernetes' qualified-name syntax, and for labels values of label syntax (which bounds them at 63 characters).
     * Its size is kept for {@link #sizes}.
     */
    private void labelsOrAnnotations(JsonNode map, String path, JSONSchemaProps valueSchema) {
        if (map == null || map.isNull()) {
            return;
        }
        if (!map.isObject()) {
            add(TYPE_INVALID, "must be a map of string keys to string values", path);
            return;
        }
        boolean labels = LABELS.contains(path);
        long bytes = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String key = entry.getKey();
            String keyError = KubeSyntax.qualifiedNameError(key);
            if (keyError != null) {
                add(INVALID, "Invalid value: \"" + shown(key) + "\": " + keyError, path);
            }
            bytes += utf8(key);
            String entryPath = path + "[" + shown(key) + "]";
            if (!entry.getValue().isTextual()) {
                add(TYPE_INVALID, "Invalid value: " + shown(entry.getValue()) + ": must be a string", entryPath);
                continue;
            }
            String value = entry.getValue().textValue();
            bytes += utf8(value);
            String valueError = labels ? KubeSyntax.labelValueError(value) : null;
            if (valueError != null) {
                add(INVALID, "Invalid value: \"" + shown(value) + "\": " + valueError, entryPath);
            } else if (!labels && valueSchema != null) {
                string(entry.getValue(), valueSchema, entryPath);
            }
        }
        labelBytes.put(path, bytes);
        if (NODE_METADATA.contains(path)) {
            nodeMetadata.put(path, map);
        }
    }

    /**
     * The fields of a disruption budget that go in pairs, as Karpenter's do: a schedule needs a duration and a duration
     * a schedule; maxPerWindow needs a window and a window maxPerWindow. The missing one is named.
     */
    private void budgets(JsonNode budgets) {
        if (!budgets.isArray()) {
            return;
        }
        for (int i = 0; i < budgets.size(); i++) {
            JsonNode budget = budgets.get(i);
            String path = BUDGETS + "[" + i + "]";
            if (budget.isObject()) {
                pair(budget, path, "schedule", "duration");
                pair(budget, path, "maxPerWindow", "window");
            }
        }
    }

    private void pair(JsonNode budget, String path, String one, String other) {
        boolean hasOne = !budget.path(one).isMissingNode() && !budget.path(one).isNull();
        boolean hasOther =
                !budget.path(other).isMissingNode() && !budget.path(other).isNull();
        if (hasOne != hasOther) {
            String missing = hasOne ? other : one;
            add(
                    REQUIRED,
                    "Required value: a budget with " + (hasOne ? one : other) + " needs " + missing,
                    join(path, missing));
        }
    }

    /**
     * The sizes of labels and annotations, all four maps together in UTF-8 (as Kubernetes bounds an object's
     * annotations), and the nodes' two maps as JSON: every node of the pool carries them.
     */
    private void sizes() {
        long total = 0;
        for (String path : LABELS_AND_ANNOTATIONS) {
            total += labelBytes.getOrDefault(path, 0L);
            if (total > Limits.MAX_LABELS_AND_ANNOTATIONS_BYTES) {
                add(
                        TOO_LONG,
                        "Too long: metadata.labels, metadata.annotations, spec.nodeLabels and spec.nodeAnnotations "
                                + "must have at most " + Limits.MAX_LABELS_AND_ANNOTATIONS_BYTES
                                + " bytes together (keys and values in "
                                + "UTF-8), these have "
                                + LABELS_AND_ANNOTATIONS.stream()
                                        .mapToLong(p -> labelBytes.getOrDefault(p, 0L))
                                        .sum(),
                        path);
                break;
            }
        }
        long json = 0;
        for (String path : NODE_METADATA) {
            JsonNode map = nodeMetadata.get(path);
            json += map == null ? 0 : JsonSize.of(map, Limits.MAX_NODE_METADATA_BYTES);
            if (json > Limits.MAX_NODE_METADATA_BYTES) {
                add(
                        TOO_LONG,
                        "Too long: spec.nodeLabels and spec.nodeAnnotations must have at most "
                                + Limits.MAX_NODE_METADATA_BYTES
                                + " bytes together as JSON, since every node of the pool carries them",
                        path);
                break;
            }
        }
    }

    private static Map<JSONSchemaProps, StringRule> strings() {
        Map<JSONSchemaProps, StringRule> strings = new IdentityHashMap<>();
        collect(NodePoolDefinition.schema(), "", strings);
        return strings;
    }

    private static void collect(JSONSchemaProps schema, String path, Map<JSONSchemaProps, StringRule> strings) {
        if ("string".equals(schema.getType())) {
            List<String> values = schema.getEnum() == null || schema.getEnum().isEmpty()
                    ? null
                    : schema.getEnum().stream().map(JsonNode::asText).toList();
            strings.put(
                    schema,
                    new StringRule(
                            values == null ? null : Set.copyOf(values),
                            values == null
                                    ? null
                                    : values.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(", ")),
                            schema.getPattern() == null ? null : Pattern.compile(schema.getPattern()),
                            SYNTAX.get(path)));
        }
        if (schema.getProperties() != null) {
            schema.getProperties().forEach((name, property) -> collect(property, join(path, name), strings));
        }
        if (schema.getItems() != null && schema.getItems().getSchema() != null) {
            collect(schema.getItems().getSchema(), path + "[]", strings);
        }
        if (schema.getAdditionalProperties() != null
                && schema.getAdditionalProperties().getSchema() != null) {
            collect(schema.getAdditionalProperties().getSchema(), path + "[]", strings);
        }
    }

    /** A string field's value, null when absent; a value that is not a string is reported. */
    private String text(JsonNode parent, String field, String path) {
        JsonNode value = parent.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a string", path);
            return null;
        }
        return value.textValue();
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static String shown(JsonNode value) {
        return FieldErrors.shown(value.toString());
    }

    private static String shown(String text) {
        return FieldErrors.shown(text);
    }

    private static long utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private void add(String reason, String message, String field) {
        causes.add(reason, message, field);
    }
}
