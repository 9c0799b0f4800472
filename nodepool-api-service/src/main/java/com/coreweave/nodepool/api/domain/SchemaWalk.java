package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.ManifestFindings.join;
import static com.coreweave.nodepool.api.domain.ManifestFindings.shown;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_MANY;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One walk of a JSON tree against a CustomResourceDefinition's schema: types, required fields, minimums and maximums,
 * longest strings and lists, enums, patterns and unknown fields, each bad value reported at its path. What the schema
 * leaves to the API server (a field it hands over whole, maps of strings) goes to the {@link Rules}.
 */
final class SchemaWalk {

    /** What the resource checks itself, in place of the schema. */
    interface Rules {

        /** Whether the field at {@code path} is the resource's own to check, which it has then done. */
        boolean checked(String path, JsonNode value);

        /** A map of strings, each value against {@code valueSchema}. */
        void stringMap(JsonNode map, String path, JSONSchemaProps valueSchema);
    }

    private final ManifestFindings found;
    private final SchemaStrings strings;
    private final Rules rules;

    SchemaWalk(ManifestFindings found, SchemaStrings strings, Rules rules) {
        this.found = found;
        this.strings = strings;
        this.rules = rules;
    }

    void value(JsonNode value, JSONSchemaProps schema, String path) {
        if (rules.checked(path, value)) {
            return;
        }
        switch (schema.getType()) {
            case "object" -> object(value, schema, path);
            case "array" -> array(value, schema, path);
            case "string" -> strings.check(value, schema, path, found);
            case "integer" -> integer(value, schema, path);
            case "boolean" -> {
                if (!value.isBoolean()) {
                    found.add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a boolean", path);
                }
            }
            default -> throw new IllegalStateException("the schema has an unknown type at " + path);
        }
    }

    private void object(JsonNode value, JSONSchemaProps schema, String path) {
        if (schema.getAdditionalProperties() != null
                && schema.getAdditionalProperties().getSchema() != null) {
            rules.stringMap(value, path, schema.getAdditionalProperties().getSchema());
            return;
        }
        if (!value.isObject()) {
            found.add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be an object", path);
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
                found.add(REQUIRED, "Required value", join(path, required));
                missing.add(required);
            }
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String fieldPath = join(path, field.getKey());
            JSONSchemaProps fieldSchema = properties.get(field.getKey());
            if (fieldSchema == null) {
                found.unknown(it, fieldPath);
            } else if (!field.getValue().isNull() && !missing.contains(field.getKey())) {
                value(field.getValue(), fieldSchema, fieldPath);
            }
        }
    }

    private void array(JsonNode value, JSONSchemaProps schema, String path) {
        if (!value.isArray()) {
            found.add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a list", path);
            return;
        }
        if (schema.getMaxItems() != null && value.size() > schema.getMaxItems()) {
            found.add(
                    TOO_MANY,
                    "Too many: " + value.size() + ": must have at most " + schema.getMaxItems() + " items",
                    path);
        }
        for (int i = 0; i < value.size(); i++) {
            value(value.get(i), schema.getItems().getSchema(), path + "[" + i + "]");
        }
    }

    private void integer(JsonNode value, JSONSchemaProps schema, String path) {
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            found.add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be an integer", path);
        } else if (schema.getMinimum() != null && value.intValue() < schema.getMinimum()) {
            found.add(
                    INVALID,
                    "Invalid value: " + value.intValue() + ": must be greater than or equal to "
                            + schema.getMinimum().intValue(),
                    path);
        } else if (schema.getMaximum() != null && value.intValue() > schema.getMaximum()) {
            found.add(
                    INVALID,
                    "Invalid value: " + value.intValue() + ": must be less than or equal to "
                            + schema.getMaximum().intValue(),
                    path);
        }
    }
}
