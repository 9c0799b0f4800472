package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Everything the provisioner keeps about one pool; the domain works on it whole.
 *
 * <ul>
 *   <li>The accepted spec, the grants the capacity ledger lists, and the nodes by name.
 *   <li>The grant ids it released: never turned into a node again.
 *   <li>The current boot-failure streak, and whether the pool is disabled.
 *   <li>The scaling episode in progress, for its start and end events.
 *   <li>The last {@code NodePoolReconciled} sent.
 *   <li>The pool's node configurations: null until its first reconcile.
 *   <li>The resourceVersion the autoscaler last asked to change (it asks once per version of the pool) and when it
 *       looks again.
 *   <li>The ids of the latest node alerts and deletion requests handled: a redelivered one changes nothing.
 *   <li>The last delivery failure of a granted machine: null once a node was delivered after it.
 *   <li>Its recent voluntary disruptions, the replacements they still wait for, and what its budgets hold back
 *       ({@link DisruptionLog}, bounded whatever the pool's size).
 *   <li>What the demand planner last gave it and what it last offered the planner ({@link DemandState}).
 *   <li>It is stored split: its nodes, grants and released grant ids each under a key of their own ({@code PoolShape}).
 * </ul>
 */
public record PoolState(
        NodePoolAccepted accepted,
        CapacityChecked capacity,
        Map<String, PoolNode> nodes,
        List<Long> releasedGrants,
        int bootFailureStreak,
        String disabledMessage,
        Scaling scaling,
        long episode,
        NodePoolReconciled lastReconciled,
        NodeConfigState configs,
        String autoscaledVersion,
        Instant autoscaleAt,
        List<String> handledRequests,
        String deliveryError,
        DisruptionLog disruptions,
        DemandState demand) {

    /** A scaling in progress: up to the target, down to it, or down to nothing for a deletion. */
    public enum Scaling {
        UP,
        DOWN,
        DELETE
    }

    public PoolState {
        nodes = nodes == null ? new TreeMap<>() : new TreeMap<>(nodes);
        releasedGrants = releasedGrants == null ? List.of() : List.copyOf(releasedGrants);
        handledRequests = handledRequests == null ? List.of() : List.copyOf(handledRequests);
        disruptions = disruptions == null ? DisruptionLog.EMPTY : disruptions;
        demand = demand == null ? DemandState.NONE : demand;
    }

    public static PoolState of(NodePoolAccepted accepted, CapacityChecked capacity) {
        return new PoolState(
                accepted,
                capacity,
                Map.of(),
                List.of(),
                0,
                null,
                null,
                0,
                null,
                null,
                null,
                null,
                List.of(),
                null,
                DisruptionLog.EMPTY,
                DemandState.NONE);
    }

    @JsonIgnore
    public boolean disabled() {
        return disabledMessage != null;
    }

    /**
     * The earliest deadline of the pool's nodes (boot, drain, retry, remediation step), the autoscaler's next look, or
     * when a budget may let a held-back disruption go.
     */
    @JsonIgnore
    public Instant wakeAt() {
        return Stream.concat(
                        nodes.values().stream().map(PoolNode::deadline), Stream.of(autoscaleAt, disruptions.wakeAt()))
                .filter(Objects::nonNull)
                .min(Instant::compareTo)
                .orElse(null);
    }

    public PoolState withAccepted(NodePoolAccepted next) {
        return new PoolState(
                next,
                capacity,
                nodes,
                releasedGrants,
                bootFailureStreak,
                disabledMessage,
                scaling,
                episode,
                lastReconciled,
                configs,
                autoscaledVersion,
                autoscaleAt,
                handledRequests,
                deliveryError,
                disruptions,
                demand);
    }

    public PoolState withCapacity(CapacityChecked next, List<Long> released) {
        return new PoolState(
                accepted,
                next,
                nodes,
                released,
                bootFailureStreak,
                disabledMessage,
                scaling,
                episode,
                lastReconciled,
                configs,
                autoscaledVersion,
                autoscaleAt,
                handledRequests,
                deliveryError,
                disruptions,
                demand);
    }

    /**
     * This state with {@code nodes}, the ledger's {@code grants} (when it decided for the pool) and the
     * {@code released} grant ids in place of its own: the three parts of a pool that grow with its size.
     */
    public PoolState withMembers(Map<String, PoolNode> nodes, List<Grant> grants, List<Long> released) {
        return new PoolState(
                accepted,
                capacity == null ? null : capacity.withGrants(grants),
                nodes,
                released,
                bootFailureStreak,
                disabledMessage,
                scaling,
                episode,
                lastReconciled,
                configs,
                autoscaledVersion,
                autoscaleAt,
                handledRequests,
                deliveryError,
                disruptions,
                demand);
    }

    /** The spec changed: the failure streak and a disabled flag start over. */
    public PoolState withNewGeneration(NodePoolAccepted next) {
        return new PoolState(
                next,
                capacity,
                nodes,
                releasedGrants,
                0,
                null,
                scaling,
                episode,
                lastReconciled,
                configs,
                autoscaledVersion,
                autoscaleAt,
                handledRequests,
                deliveryError,
                disruptions,
                demand);
    }
}
