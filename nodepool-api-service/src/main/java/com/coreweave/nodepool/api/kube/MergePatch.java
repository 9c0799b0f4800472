package com.coreweave.nodepool.api.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON Merge Patch (RFC 7386), as {@code PATCH} with {@code application/merge-patch+json} applies it. */
public final class MergePatch {

    private MergePatch() {}

    /** {@code target} with {@code patch} merged in; neither argument is modified. */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject()
                ? ((ObjectNode) target).deepCopy()
                : JsonNodeFactory.instance.objectNode();
        patch.fields().forEachRemaining(entry -> {
            if (entry.getValue().isNull()) {
                result.remove(entry.getKey());
            } else {
                result.set(entry.getKey(), apply(result.get(entry.getKey()), entry.getValue()));
            }
        });
        return result;
    }
}
