package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a user's patch of a core Node changes, found by comparing the node before and after the patch: the user's cordon
 * ({@code spec.unschedulable}), labels, annotations and taints. Everything else of a Node is the platform's, as are the
 * platform's and the NodePool's own keys ({@link NodeKeys}, {@link PoolMarks}): a patch that changes any of it is
 * refused with a 422 naming each field, and nothing of it is applied.
 */
public final class NodeEdits {

    /**
     * The keys the NodePool's spec sets on its nodes ({@code nodeLabels}, {@code nodeAnnotations}, {@code nodeTaints}).
     */
    public record PoolMarks(Set<String> labels, Set<String> annotations, Set<String> taints) {

        public static final PoolMarks NONE = new PoolMarks(Set.of(), Set.of(), Set.of());
    }

    /**
     * The user's change: a null field changes nothing; {@code taints} are the user's taints in full.
     *
     * @param unschedulable the user's cordon, when the patch changed it
     */
    public record Edit(
            Boolean unschedulable,
            Map<String, String> labels,
            List<String> removedLabels,
            Map<String, String> annotations,
            List<String> removedAnnotations,
            List<Taint> taints) {

        public boolean empty() {
            return unschedulable == null
                    && labels.isEmpty()
                    && removedLabels.isEmpty()
                    && annotations.isEmpty()
                    && removedAnnotations.isEmpty()
                    && taints == null;
        }
    }

    static final String LABELS = "metadata.labels";
    static final String ANNOTATIONS = "metadata.annotations";

    private NodeEdits() {}

    /** The edit that takes the Node {@code current} to {@code patched}; a 422 refusal when it may not be made. */
    public static Edit between(JsonNode current, JsonNode patched, PoolMarks pool, String name) {
        FieldErrors errors = new FieldErrors();
        String other = firstOtherChange(current, patched, "");
        if (other != null) {
            errors.add(
                    Statuses.FORBIDDEN,
                    "Forbidden: only metadata.labels, metadata.annotations, spec.unschedulable and spec.taints of a"
                            + " Node may be changed",
                    other);
        }
        NodeMapEdits.Keys labels = NodeMapEdits.keys(current, patched, LABELS, pool.labels(), true, errors);
        NodeMapEdits.Keys annotations =
                NodeMapEdits.keys(current, patched, ANNOTATIONS, pool.annotations(), false, errors);
        if (Json.bytes(labels.kept()).length + Json.bytes(annotations.kept()).length > Limits.MAX_NODE_METADATA_BYTES) {
            errors.add(
                    Statuses.TOO_LONG,
                    "Too long: a user's labels and annotations of a node must have at most "
                            + Limits.MAX_NODE_METADATA_BYTES + " bytes",
                    "metadata");
        }
        boolean cordonBefore = current.path("spec").path("unschedulable").asBoolean(false);
        JsonNode cordonAfter = patched.path("spec").path("unschedulable");
        if (!cordonAfter.isMissingNode() && !cordonAfter.isNull() && !cordonAfter.isBoolean()) {
            errors.add(Statuses.TYPE_INVALID, "Invalid value: must be a boolean", "spec.unschedulable");
        }
        boolean cordon = cordonAfter.asBoolean(false);
        List<Taint> taints = NodeTaintEdits.taints(current, patched, pool.taints(), errors);
        if (!errors.isEmpty()) {
            throw errors.refusal("Node", name);
        }
        return new Edit(
                cordon == cordonBefore ? null : cordon,
                labels.set(),
                labels.removed(),
                annotations.set(),
                annotations.removed(),
                taints);
    }

    /** The path of the first field outside the user's that differs, or null when none does. */
    private static String firstOtherChange(JsonNode before, JsonNode after, String path) {
        if (before.isObject() && after.isObject()) {
            Set<String> names = new TreeSet<>();
            before.fieldNames().forEachRemaining(names::add);
            after.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                String child = path.isEmpty() ? name : path + "." + name;
                if (userField(child)) {
                    continue;
                }
                String differs = firstOtherChange(before.path(name), after.path(name), child);
                if (differs != null) {
                    return differs;
                }
            }
            return null;
        }
        boolean beforeAbsent = before.isMissingNode() || before.isNull();
        boolean afterAbsent = after.isMissingNode() || after.isNull();
        if (beforeAbsent && afterAbsent) {
            return null;
        }
        return before.equals(after) ? null : path;
    }

    private static boolean userField(String path) {
        return path.equals(LABELS)
                || path.equals(ANNOTATIONS)
                || path.equals("metadata.resourceVersion")
                || path.equals("spec.unschedulable")
                || path.equals("spec.taints");
    }

    /** The node shown with the edit applied, as the patch made it, keeping the cordon the platform holds. */
    public static JsonNode shown(JsonNode patched, boolean unschedulable) {
        ObjectNode shown = patched.deepCopy();
        ObjectNode spec = shown.with("spec");
        if (unschedulable) {
            spec.put("unschedulable", true);
        } else {
            spec.remove("unschedulable");
        }
        return shown;
    }
}
