package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The marks node health leaves on a node: the taint {@code compute.coreweave.com/unhealthy} (NoSchedule, naming the
 * alert) while a remediation holds the node, and one condition per alert class the node has had.
 */
public final class HealthMarks {

    public static final String NO_ACTIVE_ALERT = "NoActiveAlert";

    /** The conditions every node has; any other is the condition of an alert class. */
    private static final Set<String> LIFECYCLE_CONDITIONS =
            Set.of(Node.CONDITION_ACTIVE, Node.CONDITION_REGISTERED, Node.CONDITION_REMOVAL, Node.CONDITION_READY);

    private HealthMarks() {}

    /** The health taint (NoSchedule, its value the alert) set, or removed when {@code alert} is null. */
    public static Node tainted(Node node, String alert) {
        List<Taint> taints = new ArrayList<>(
                node.spec().taints() == null ? List.of() : node.spec().taints());
        taints.removeIf(t -> Node.TAINT_UNHEALTHY.equals(t.key()));
        if (alert != null) {
            taints.add(new Taint(Node.TAINT_UNHEALTHY, alert, "NoSchedule"));
        }
        return node.withSpec(new Node.Spec(
                node.spec().providerID(), node.spec().unschedulable(), taints.isEmpty() ? null : List.copyOf(taints)));
    }

    public static Optional<Taint> taint(Node node) {
        return node.spec().taints() == null
                ? Optional.empty()
                : node.spec().taints().stream()
                        .filter(t -> Node.TAINT_UNHEALTHY.equals(t.key()))
                        .findFirst();
    }

    /**
     * One condition per alert class the node has had: True while an alert of that class is active (reason the oldest of
     * them, message every one with its details), False once none is.
     */
    public static Node withAlerts(Node node, List<NodeHealth.Alert> alerts, Instant now) {
        Map<String, List<NodeHealth.Alert>> byCondition = new TreeMap<>();
        alerts.forEach(a -> byCondition
                .computeIfAbsent(a.condition(), c -> new ArrayList<>())
                .add(a));
        Node next = node;
        for (Condition existing : node.status().conditions()) {
            if (existing.isTrue()
                    && !LIFECYCLE_CONDITIONS.contains(existing.type())
                    && !byCondition.containsKey(existing.type())) {
                next = NodeTemplate.withCondition(
                        next, existing.type(), false, NO_ACTIVE_ALERT, "No alert of this class is active.", now);
            }
        }
        for (var entry : byCondition.entrySet()) {
            List<NodeHealth.Alert> active = entry.getValue();
            String message = String.join(
                    "; ",
                    active.stream()
                            .map(a -> a.name() + (a.details() == null ? "" : ": " + a.details()) + " (" + a.action()
                                    + ")")
                            .toList());
            next = NodeTemplate.withCondition(
                    next, entry.getKey(), true, active.get(0).name(), message, now);
        }
        return next;
    }
}
