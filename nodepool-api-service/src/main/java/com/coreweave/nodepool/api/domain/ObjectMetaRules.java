package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.ManifestFindings.shown;
import static com.coreweave.nodepool.schema.resource.Statuses.FORBIDDEN;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.coreweave.nodepool.api.kube.KubeSyntax;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/** A NodePool's ObjectMeta: a CRD's schema leaves it to the API server, which knows its fields and their syntax. */
final class ObjectMetaRules {

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

    private final ManifestFindings found;
    private final LabelMaps maps;

    ObjectMetaRules(ManifestFindings found, LabelMaps maps) {
        this.found = found;
        this.maps = maps;
    }

    void check(JsonNode metadata) {
        if (!metadata.isObject()) {
            found.add(TYPE_INVALID, "Invalid value: " + shown(metadata) + ": must be an object", "metadata");
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = metadata.fields(); it.hasNext(); ) {
            String field = it.next().getKey();
            if (!METADATA.contains(field)) {
                found.unknown(it, "metadata." + field);
            }
        }
        JsonNode nameValue = metadata.get("name");
        String name = text(metadata, "name", "metadata.name");
        if (nameValue == null || nameValue.isNull()) {
            found.add(REQUIRED, "Required value", "metadata.name");
        } else if (name != null && KubeSyntax.dnsSubdomainError(name) != null) {
            found.add(
                    INVALID,
                    "Invalid value: \"" + shown(name) + "\": " + KubeSyntax.dnsSubdomainError(name),
                    "metadata.name");
        }
        String namespace = text(metadata, "namespace", "metadata.namespace");
        if (namespace != null && !namespace.isEmpty()) {
            found.add(FORBIDDEN, "NodePool is cluster-scoped: namespace must be empty", "metadata.namespace");
        }
        text(metadata, "uid", "metadata.uid");
        text(metadata, "resourceVersion", "metadata.resourceVersion");
        timestamp(metadata, "creationTimestamp");
        timestamp(metadata, "deletionTimestamp");
        JsonNode generation = metadata.get("generation");
        if (generation != null
                && !generation.isNull()
                && (!generation.isIntegralNumber() || !generation.canConvertToLong())) {
            found.add(
                    TYPE_INVALID,
                    "Invalid value: " + shown(generation) + ": must be an integer",
                    "metadata.generation");
        }
        JsonNode managedFields = metadata.get("managedFields");
        if (managedFields != null && !managedFields.isNull() && !managedFields.isArray()) {
            found.add(
                    TYPE_INVALID,
                    "Invalid value: " + shown(managedFields) + ": must be a list",
                    "metadata.managedFields");
        }
        maps.check(metadata.get("labels"), "metadata.labels", null);
        maps.check(metadata.get("annotations"), "metadata.annotations", null);
    }

    /** A server-set timestamp a client may echo back: ignored, but it must still be an RFC 3339 timestamp. */
    private void timestamp(JsonNode metadata, String field) {
        String value = text(metadata, field, "metadata." + field);
        if (value != null) {
            try {
                java.time.OffsetDateTime.parse(value);
            } catch (java.time.format.DateTimeParseException e) {
                found.add(
                        TYPE_INVALID,
                        "Invalid value: \"" + shown(value) + "\": must be an RFC 3339 timestamp",
                        "metadata." + field);
            }
        }
    }

    /** A string field's value, null when absent; a value that is not a string is reported. */
    private String text(JsonNode parent, String field, String path) {
        JsonNode value = parent.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            found.add(TYPE_INVALID, "Invalid value: " + shown(value) + ": must be a string", path);
            return null;
        }
        return value.textValue();
    }
}
