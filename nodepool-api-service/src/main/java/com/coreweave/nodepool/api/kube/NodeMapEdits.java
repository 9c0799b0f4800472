package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a patch of a Node does to one of its maps, labels or annotations: the keys it set and removed, checked against
 * the platform's keys ({@link NodeKeys}) and the NodePool's, which a user may not change.
 */
final class NodeMapEdits {

    private NodeMapEdits() {}

    /** The user's keys of a map after the patch, and what the patch set and removed of them. */
    record Keys(Map<String, String> set, List<String> removed, Map<String, String> kept) {}

    static Keys keys(
            JsonNode current, JsonNode patched, String field, Set<String> pool, boolean labels, FieldErrors errors) {
        Map<String, String> before = strings(at(current, field), field, errors);
        Map<String, String> after = strings(at(patched, field), field, errors);
        Map<String, String> set = new TreeMap<>();
        List<String> removed = new ArrayList<>();
        Map<String, String> kept = new TreeMap<>();
        Set<String> keys = new TreeSet<>(before.keySet());
        keys.addAll(after.keySet());
        for (String key : keys) {
            String was = before.get(key);
            String is = after.get(key);
            String path = field + "[" + key + "]";
            boolean platform = labels ? NodeKeys.platformLabel(key) : NodeKeys.platformAnnotation(key);
            if (Objects.equals(was, is)) {
                if (is != null && !platform && !pool.contains(key)) {
                    kept.put(key, is);
                }
                continue;
            }
            if (platform) {
                errors.add(
                        Statuses.FORBIDDEN,
                        "Forbidden: " + key + " is set by the platform and may not be changed on a node",
                        path);
            } else if (pool.contains(key)) {
                errors.add(
                        Statuses.FORBIDDEN,
                        "Forbidden: " + key + " is set by the NodePool's spec.node"
                                + (labels ? "Labels" : "Annotations") + "; change it there",
                        path);
            } else if (is == null) {
                removed.add(key);
            } else {
                String keyError = KubeSyntax.qualifiedNameError(key);
                String valueError = labels ? KubeSyntax.labelValueError(is) : NodeKeys.annotationValueError(key, is);
                if (keyError != null) {
                    errors.add(
                            Statuses.INVALID, "Invalid value: \"" + FieldErrors.shown(key) + "\": " + keyError, path);
                } else if (valueError != null) {
                    errors.add(
                            Statuses.INVALID, "Invalid value: \"" + FieldErrors.shown(is) + "\": " + valueError, path);
                }
                set.put(key, is);
                kept.put(key, is);
            }
        }
        if (kept.size() > Limits.MAX_USER_NODE_MARKS) {
            errors.add(
                    Statuses.TOO_MANY,
                    "Too many: " + kept.size() + ": a user may set at most " + Limits.MAX_USER_NODE_MARKS + " "
                            + (labels ? "labels" : "annotations") + " on a node",
                    field);
        }
        return new Keys(set, removed, kept);
    }

    private static JsonNode at(JsonNode node, String dotted) {
        JsonNode at = node;
        for (String part : dotted.split("\\.")) {
            at = at.path(part);
        }
        return at;
    }

    private static Map<String, String> strings(JsonNode map, String field, FieldErrors errors) {
        Map<String, String> strings = new LinkedHashMap<>();
        if (map.isMissingNode() || map.isNull()) {
            return strings;
        }
        if (!map.isObject()) {
            errors.add(Statuses.TYPE_INVALID, "Invalid value: must be a map of strings", field);
            return strings;
        }
        map.fields().forEachRemaining(e -> {
            if (e.getValue().isTextual()) {
                strings.put(e.getKey(), e.getValue().asText());
            } else if (!e.getValue().isNull()) {
                errors.add(Statuses.TYPE_INVALID, "Invalid value: must be a string", field + "[" + e.getKey() + "]");
            }
        });
        return strings;
    }
}
