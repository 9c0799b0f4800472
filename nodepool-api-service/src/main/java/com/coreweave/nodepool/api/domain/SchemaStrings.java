package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.ManifestFindings.join;
import static com.coreweave.nodepool.api.domain.ManifestFindings.shown;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.NOT_SUPPORTED;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The rules of each string of a schema, by its node in the schema: looked up, not worked out, per value. Besides the
 * schema's length, values and pattern, a string may have a syntax the schema cannot express, given by schema path.
 */
final class SchemaStrings {

    /** What the schema says of a string besides its length: the values it may take, its pattern, its syntax. */
    private record StringRule(Set<String> values, String supported, Pattern pattern, Function<String, String> syntax) {}

    private final Map<JSONSchemaProps, StringRule> rules = new IdentityHashMap<>();

    /** {@code syntax} by schema path, {@code []} standing for any list index or map key. */
    SchemaStrings(JSONSchemaProps schema, Map<String, Function<String, String>> syntax) {
        collect(schema, "", syntax);
    }

    /** Whether {@code value} is a string the schema allows; its length is checked before it is matched or shown. */
    boolean check(JsonNode value, JSONSchemaProps schema, String path, ManifestFindings found) {
        if (!value.isTextual()) {
            found.add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a string", path);
            return false;
        }
        String text = value.textValue();
        Long maxLength = schema.getMaxLength();
        if (maxLength != null && text.length() > maxLength && text.codePointCount(0, text.length()) > maxLength) {
            found.add(TOO_LONG, "Too long: must have at most " + maxLength + " characters", path);
            return false;
        }
        StringRule rule = rules.get(schema);
        if (rule.values() != null && !rule.values().contains(text)) {
            found.add(
                    NOT_SUPPORTED,
                    "Unsupported value: \"" + shown(text) + "\": supported values: " + rule.supported(),
                    path);
            return false;
        }
        if (rule.pattern() != null && !rule.pattern().matcher(text).matches()) {
            found.add(
                    INVALID,
                    "Invalid value: \"" + shown(text) + "\": must match the regular expression '"
                            + rule.pattern().pattern() + "'",
                    path);
            return false;
        }
        String error = rule.syntax() == null ? null : rule.syntax().apply(text);
        if (error != null) {
            found.add(INVALID, "Invalid value: \"" + shown(text) + "\": " + error, path);
            return false;
        }
        return true;
    }

    private void collect(JSONSchemaProps schema, String path, Map<String, Function<String, String>> syntax) {
        if ("string".equals(schema.getType())) {
            List<String> values = schema.getEnum() == null || schema.getEnum().isEmpty()
                    ? null
                    : schema.getEnum().stream().map(JsonNode::asText).toList();
            rules.put(
                    schema,
                    new StringRule(
                            values == null ? null : Set.copyOf(values),
                            values == null
                                    ? null
                                    : values.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(", ")),
                            schema.getPattern() == null ? null : Pattern.compile(schema.getPattern()),
                            syntax.get(path)));
        }
        if (schema.getProperties() != null) {
            schema.getProperties().forEach((name, property) -> collect(property, join(path, name), syntax));
        }
        if (schema.getItems() != null && schema.getItems().getSchema() != null) {
            collect(schema.getItems().getSchema(), path + "[]", syntax);
        }
        if (schema.getAdditionalProperties() != null
                && schema.getAdditionalProperties().getSchema() != null) {
            collect(schema.getAdditionalProperties().getSchema(), path + "[]", syntax);
        }
    }
}
