package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a patch of a Node does to its taints: the user's taints in full, checked against those the platform and the
 * NodePool's spec put there, which a user may neither change nor remove.
 */
final class NodeTaintEdits {

    private NodeTaintEdits() {}

    static List<Taint> taints(JsonNode current, JsonNode patched, Set<String> pool, FieldErrors errors) {
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
}
