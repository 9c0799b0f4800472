package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
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

    private static final String LABELS = "metadata.labels";
    private static final String ANNOTATIONS = "metadata.annotations";

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
        Keys labels = keys(current, patched, LABELS, pool.labels(), true, errors);
        Keys annotations = keys(current, patched, ANNOTATIONS, pool.annotations(), false, errors);
        if (Json.bytes(labels.kept).length + Json.bytes(annotations.kept).length > Limits.MAX_NODE_METADATA_BYTES) {
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
        List<Taint> taints = taints(current, patched, pool.taints(), errors);
        if (!errors.isEmpty()) {
            throw errors.refusal("Node", name);
        }
        return new Edit(
                cordon == cordonBefore ? null : cordon,
                labels.set,
                labels.removed,
                annotations.set,
                annotations.removed,
                taints);
    }

    /** The user's keys of a map after the patch, and what the patch set and removed of them. */
    private record Keys(Map<String, String> set, List<String> removed, Map<String, String> kept) {}

    private static Keys keys(
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
                String valueError = labels ? KubeSyntax.labelValueError(is) : null;
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

    private static List<Taint> taints(JsonNode current, JsonNode patched, Set<String> pool, FieldErrors errors) {
        List<Taint> before = taintList(current.path("spec").path("taints"), errors);
        List<Taint> after = taintList(patched.path("spec").path("taints"), errors);
        List<Taint> ownedBefore = new ArrayList<>();
        List<Taint> userBefore = new ArrayList<>();
        for (Taint taint : before) {
            (owned(taint, pool) ? ownedBefore : userBefore).add(taint);
        }
        List<Taint> userAfter = new ArrayList<>();
        for (int i = 0; i < after.size(); i++) {
            Taint taint = after.get(i);
            String path = "spec.taints[" + i + "]";
            if (owned(taint, pool)) {
                if (!ownedBefore.contains(taint)) {
                    errors.add(
                            Statuses.FORBIDDEN,
                            "Forbidden: taint key " + taint.key() + " is "
                                    + (pool.contains(taint.key())
                                            ? "set by the NodePool's spec.nodeTaints; change it there"
                                            : "set by the platform and may not be changed on a node"),
                            path + ".key");
                }
                continue;
            }
            checkTaint(taint, path, errors);
            if (userAfter.stream().anyMatch(t -> sameTaint(t, taint))) {
                errors.add(Statuses.DUPLICATE, "Duplicate value: " + taint.key() + ":" + taint.effect(), path);
            }
            userAfter.add(taint);
        }
        for (Taint taint : ownedBefore) {
            if (!after.contains(taint)) {
                errors.add(
                        Statuses.FORBIDDEN,
                        "Forbidden: taint " + taint.key() + ":" + taint.effect() + " is "
                                + (pool.contains(taint.key())
                                        ? "set by the NodePool's spec.nodeTaints; change it there"
                                        : "set by the platform and may not be removed from a node"),
                        "spec.taints");
            }
        }
        if (userAfter.size() > Limits.MAX_USER_NODE_MARKS) {
            errors.add(
                    Statuses.TOO_MANY,
                    "Too many: " + userAfter.size() + ": a user may set at most " + Limits.MAX_USER_NODE_MARKS
                            + " taints on a node",
                    "spec.taints");
        }
        return userAfter.equals(userBefore) ? null : List.copyOf(userAfter);
    }

    private static boolean owned(Taint taint, Set<String> pool) {
        return taint.key() != null && (NodeKeys.platformLabel(taint.key()) || pool.contains(taint.key()));
    }

    private static void checkTaint(Taint taint, String path, FieldErrors errors) {
        String keyError = taint.key() == null ? "a taint key is required" : KubeSyntax.qualifiedNameError(taint.key());
        if (keyError != null) {
            errors.add(Statuses.INVALID, "Invalid value: " + keyError, path + ".key");
        }
        String valueError = taint.value() == null ? null : KubeSyntax.labelValueError(taint.value());
        if (valueError != null) {
            errors.add(Statuses.INVALID, "Invalid value: " + valueError, path + ".value");
        }
        if (!Taint.EFFECTS.contains(taint.effect())) {
            errors.add(
                    Statuses.NOT_SUPPORTED,
                    "Unsupported value: \"" + FieldErrors.shown(String.valueOf(taint.effect()))
                            + "\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                    path + ".effect");
        }
    }

    static boolean sameTaint(Taint a, Taint b) {
        return Objects.equals(a.key(), b.key()) && Objects.equals(a.effect(), b.effect());
    }

    private static List<Taint> taintList(JsonNode taints, FieldErrors errors) {
        List<Taint> list = new ArrayList<>();
        if (taints.isMissingNode() || taints.isNull()) {
            return list;
        }
        if (!taints.isArray()) {
            errors.add(Statuses.TYPE_INVALID, "Invalid value: must be a list of taints", "spec.taints");
            return list;
        }
        for (JsonNode taint : taints) {
            // timeAdded is Kubernetes' own bookkeeping of NoExecute taints; the node keeps none.
            list.add(new Taint(
                    text(taint.path("key")), emptyAsNull(text(taint.path("value"))), text(taint.path("effect"))));
        }
        return list;
    }

    private static String text(JsonNode value) {
        return value.isTextual() ? value.asText() : null;
    }

    private static String emptyAsNull(String value) {
        return value == null || value.isEmpty() ? null : value;
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
