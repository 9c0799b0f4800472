package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * A patch of a core Node as kubectl sends one: a strategic merge patch ({@code cordon}, {@code drain}, {@code taint}),
 * a merge patch ({@code label}, {@code annotate}) or a JSON patch ({@code kubectl patch --type=json}). For the fields a
 * user may change on a Node (two maps, a boolean, and {@code spec.taints}, which has no merge key) a strategic merge
 * patch merges as a merge patch does; its directives ({@code $patch}, {@code $retainKeys}, ...) are refused. Any other
 * content type is a 415.
 */
public final class NodePatches {

    static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";
    static final String MERGE_PATCH = "application/merge-patch+json";
    static final String JSON_PATCH = "application/json-patch+json";

    private NodePatches() {}

    /** {@code node} with the patch {@code body} of content type {@code subtype} ("type/subtype") applied. */
    public static JsonNode apply(JsonNode node, String body, String subtype, String name) {
        JsonNode patch;
        switch (subtype) {
            case STRATEGIC_MERGE_PATCH, MERGE_PATCH, JSON_PATCH -> patch = RequestBody.tree(body, "a Node patch");
            default ->
                throw new ApiException(Statuses.failure(
                        415,
                        "UnsupportedMediaType",
                        "the body of a Node patch must be " + STRATEGIC_MERGE_PATCH + ", " + MERGE_PATCH + " or "
                                + JSON_PATCH + ", not \"" + subtype + "\"",
                        null));
        }
        try {
            if (subtype.equals(JSON_PATCH)) {
                return JsonPatch.apply(node, patch);
            }
            if (!patch.isObject()) {
                throw new IllegalArgumentException("a merge patch must be a JSON object");
            }
            if (subtype.equals(STRATEGIC_MERGE_PATCH)) {
                String directive = directive(patch);
                if (directive != null) {
                    throw new IllegalArgumentException("the strategic merge directive " + directive
                            + " is not supported for the fields a user may change on a Node");
                }
            }
            return MergePatch.apply(node, patch);
        } catch (IllegalArgumentException e) {
            throw FieldErrors.one(Statuses.INVALID, "the patch cannot be applied: " + e.getMessage(), "")
                    .refusal("Node", name);
        }
    }

    /** The first strategic merge directive in {@code patch} (a key starting with {@code $}), or null. */
    static String directive(JsonNode patch) {
        if (patch.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (field.getKey().startsWith("$")) {
                    return field.getKey();
                }
                String inner = directive(field.getValue());
                if (inner != null) {
                    return inner;
                }
            }
        } else if (patch.isArray()) {
            for (JsonNode item : patch) {
                String inner = directive(item);
                if (inner != null) {
                    return inner;
                }
            }
        }
        return null;
    }
}
