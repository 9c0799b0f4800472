package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.Verdicts;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.NodePoolStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Derives a pool's status from its view: the conditions of reference 000 (in its order), the counts, the node
 * configurations the provisioner last reported and {@code observedGeneration}. A condition keeps its
 * {@code lastTransitionTime} while its status stays the same.
 */
public final class StatusProjector {

    private StatusProjector() {}

    /** The whole resource as it should be published now. */
    public static NodePool project(PoolView view, Instant now) {
        NodePool pool = view.accepted().nodePool();
        // Kubernetes timestamps have second precision.
        return pool.withStatus(status(view, now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)));
    }

    static NodePoolStatus status(PoolView view, Instant now) {
        // Counted against the generation in force: while a later one is not valid, the last valid one's target holds.
        NodePoolSpec spec = view.accepted().inForce().nodePool().spec();
        NodeTally counts = view.tally();
        NodePoolReconciled reconciled = view.reconciled();
        boolean deleting = view.accepted().deleting();

        List<Condition> conditions = new ArrayList<>();
        conditions.add(validated(view));
        Verdicts verdicts = reconciled == null ? null : reconciled.verdicts();
        if (verdicts != null && verdicts.capacityReason() != null) {
            String reason = verdicts.capacityReason();
            conditions.add(Condition.of(
                    Conditions.CAPACITY,
                    Conditions.Capacity.SUFFICIENT.equals(reason),
                    reason,
                    verdicts.capacityMessage()));
        }
        if (verdicts != null && verdicts.quotaReason() != null) {
            String reason = verdicts.quotaReason();
            conditions.add(Condition.of(
                    Conditions.QUOTA, Conditions.Quota.UNDER.equals(reason), reason, verdicts.quotaMessage()));
        }
        conditions.add(atTarget(spec, counts, reconciled, deleting, view));
        if (deleting) {
            conditions.add(nodesRemoved(view, reconciled));
        }
        String profile = reconciled == null ? null : reconciled.nodeProfile();
        conditions.add(reconfiguration(view, profile, reconciled));

        List<Condition> previous = view.published() == null || view.published().status() == null
                ? List.of()
                : Objects.requireNonNullElse(view.published().status().conditions(), List.of());
        List<Condition> timed = conditions.stream()
                .map(c -> c.after(
                        previous.stream()
                                .filter(p -> p.type().equals(c.type()))
                                .findFirst()
                                .orElse(null),
                        now))
                .toList();
        Long observed = reconciled == null ? null : reconciled.pool().generation();
        int queued = deleting ? 0 : queued(reconciled);
        return new NodePoolStatus(
                observed,
                timed,
                counts.current(),
                counts.inProgress(),
                queued,
                profile,
                reconciled == null ? null : reconciled.pendingNodeConfiguration(),
                revisions(reconciled),
                deleting || reconciled == null ? null : reconciled.disruption(),
                reconciled == null ? null : reconciled.pendingDemand());
    }

    /** The nodes capacity's queue holds for the pool, as its last verdict said. */
    private static int queued(NodePoolReconciled reconciled) {
        return reconciled == null || reconciled.verdicts() == null
                ? 0
                : reconciled.verdicts().queuedNodes();
    }

    /** Absent rather than empty, so a pool without configuration history shows no such field. */
    private static List<NodeConfigurationRevision> revisions(NodePoolReconciled reconciled) {
        return reconciled == null || reconciled.nodeConfigurationRevisions().isEmpty()
                ? null
                : reconciled.nodeConfigurationRevisions();
    }

    private static Condition validated(PoolView view) {
        var validation = view.accepted().validation();
        var lastValid = view.accepted().lastValid();
        String message = lastValid == null
                ? validation.message()
                : validation.message() + " Generation "
                        + view.accepted().generation() + " was not applied; generation " + lastValid.generation()
                        + " stays in force.";
        return Condition.of(Conditions.VALIDATED, validation.valid(), validation.reason(), message);
    }

    private static Condition atTarget(
            NodePoolSpec spec, NodeTally counts, NodePoolReconciled reconciled, boolean deleting, PoolView view) {
        int target = spec.target();
        if (deleting) {
            return Condition.of(
                    Conditions.AT_TARGET,
                    false,
                    Conditions.AtTarget.PENDING_DELETE,
                    "NodePool is being deleted; its nodes will be removed.");
        }
        if (reconciled != null && reconciled.disabled()) {
            return Condition.of(
                    Conditions.AT_TARGET,
                    false,
                    Conditions.AtTarget.UNDER_TARGET,
                    "NodePool is disabled: " + reconciled.disabledMessage());
        }
        String fleetError = reconciled == null
                ? null
                : reconciled.removalError() != null ? reconciled.removalError() : reconciled.deliveryError();
        if (fleetError != null) {
            return Condition.of(Conditions.AT_TARGET, false, Conditions.AtTarget.INTERNAL_ERROR, fleetError);
        }
        int staying = counts.current() - counts.removing();
        if (counts.current() > target || (counts.removing() > 0 && staying >= target)) {
            return Condition.of(
                    Conditions.AT_TARGET,
                    false,
                    Conditions.AtTarget.OVER_TARGET,
                    "NodePool has " + counts.current() + " nodes for a target of " + target
                            + "; extra nodes will be removed "
                            + "using the " + spec.scaleDownStrategy() + " scale-down strategy"
                            + (counts.removing() > 0 ? " (" + counts.removing() + " being removed)." : "."));
        }
        // A node rebooting in place (reconfigure or health) is current, not in progress (NodeTally): routine
        // maintenance
        // keeps TargetMet, and the message says how many reboot.
        if (counts.current() == target && counts.inProgress() == 0) {
            return Condition.of(
                    Conditions.AT_TARGET,
                    true,
                    Conditions.AtTarget.TARGET_MET,
                    counts.rebooting() == 0
                            ? "NodePool has reached its target node count."
                            : "NodePool has reached its target node count; " + counts.rebooting()
                                    + " node(s) rebooting in place.");
        }
        int queued = queued(reconciled);
        String why = !view.accepted().inForce().validation().valid() ? " The configuration is not valid." : "";
        return Condition.of(
                Conditions.AT_TARGET,
                false,
                Conditions.AtTarget.UNDER_TARGET,
                "NodePool has " + counts.current() + " of " + target + " nodes: " + counts.inProgress()
                        + " in progress, " + queued + " queued." + why);
    }

    /** Complete once no node is left; while a removal fails (and is retried), an internal error saying which. */
    private static Condition nodesRemoved(PoolView view, NodePoolReconciled reconciled) {
        if (reconciled != null && reconciled.nodesRemoved() && view.nodes().isEmpty()) {
            return Condition.of(
                    Conditions.NODES_REMOVED,
                    true,
                    Conditions.NodesRemoved.COMPLETE,
                    "All nodes have been removed; the NodePool will be deleted.");
        }
        if (reconciled != null && reconciled.removalError() != null) {
            return Condition.of(
                    Conditions.NODES_REMOVED, false, Conditions.NodesRemoved.INTERNAL_ERROR, reconciled.removalError());
        }
        return Condition.of(
                Conditions.NODES_REMOVED,
                false,
                Conditions.NodesRemoved.PENDING,
                view.nodes().size() + " node(s) are being removed from the NodePool.");
    }

    private static Condition reconfiguration(PoolView view, String profile, NodePoolReconciled reconciled) {
        if (reconciled != null && reconciled.stagingError() != null) {
            return Condition.of(
                    Conditions.NODE_RECONFIGURATION_REQUIRED,
                    false,
                    Conditions.NodeReconfigurationRequired.INTERNAL_ERROR,
                    reconciled.stagingError());
        }
        long outdated = profile == null ? 0 : view.tally().outdated(profile);
        return outdated == 0
                ? Condition.of(
                        Conditions.NODE_RECONFIGURATION_REQUIRED,
                        false,
                        Conditions.NodeReconfigurationRequired.ALL_NODES_UP_TO_DATE,
                        "All nodes are on the current configuration.")
                : Condition.of(
                        Conditions.NODE_RECONFIGURATION_REQUIRED,
                        true,
                        Conditions.NodeReconfigurationRequired.STAGED_NODE_CONFIG,
                        outdated + " node(s) need a reconfigure reboot to run " + profile + ".");
    }
}
