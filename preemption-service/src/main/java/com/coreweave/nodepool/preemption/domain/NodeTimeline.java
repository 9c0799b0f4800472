package com.coreweave.nodepool.preemption.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import java.time.Duration;
import java.time.Instant;

/**
 * Where one node is in its preemption timeline and the times it was given: what the durable timer store keeps per node.
 * The times set at T+0 ({@code drainAt}, {@code removeBy}) never move, so a restart continues the same schedule.
 * {@code finishedAt} and {@code cause} are set once the node was removed or its timeline cancelled.
 */
public record NodeTimeline(
        String reclaimId,
        PoolRef pool,
        String node,
        Phase phase,
        Instant pendingAt,
        Instant drainAt,
        Instant removeBy,
        Instant evictedAt,
        Integer gracePeriodSeconds,
        Instant killAt,
        Instant finishedAt,
        String cause) {

    /**
     * Pending (cordoned, workloads running) → Draining (SIGTERM sent) → Removed; Cancelled when the node left the pool
     * for another reason first.
     */
    public enum Phase {
        Pending,
        Draining,
        Removed,
        Cancelled
    }

    static NodeTimeline pending(
            String reclaimId, PoolRef pool, String node, Instant pendingAt, Instant drainAt, Instant removeBy) {
        return new NodeTimeline(
                reclaimId, pool, node, Phase.Pending, pendingAt, drainAt, removeBy, null, null, null, null, null);
    }

    public boolean running() {
        return phase == Phase.Pending || phase == Phase.Draining;
    }

    NodeTimeline draining(Instant at, Duration grace) {
        return new NodeTimeline(
                reclaimId,
                pool,
                node,
                Phase.Draining,
                pendingAt,
                drainAt,
                removeBy,
                at,
                (int) grace.toSeconds(),
                at.plus(grace),
                null,
                null);
    }

    NodeTimeline removed(Instant at, String removalCause) {
        return new NodeTimeline(
                reclaimId,
                pool,
                node,
                Phase.Removed,
                pendingAt,
                drainAt,
                removeBy,
                evictedAt,
                gracePeriodSeconds,
                killAt,
                at,
                removalCause);
    }

    NodeTimeline cancelled(Instant at, String cancelCause) {
        return new NodeTimeline(
                reclaimId,
                pool,
                node,
                Phase.Cancelled,
                pendingAt,
                drainAt,
                removeBy,
                evictedAt,
                gracePeriodSeconds,
                killAt,
                at,
                cancelCause);
    }
}
