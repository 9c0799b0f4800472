package com.coreweave.nodepool.schema.events;

import java.time.Instant;
import java.util.List;

/**
 * The capacity-service's ledger entry for one pool (compacted {@code capacity-checked}, keyed {@code <org>/<pool>}):
 * every machine currently allocated to it and how many more it waits for. {@code reason} is the {@code Capacity}
 * condition's reason, or {@code null} for a pool that asks for nothing and holds nothing. {@code queuePosition}
 * (1-based) and {@code queueLength} describe the FIFO queue of its zone and type when it waits. {@code quotaReason} and
 * {@code quotaMessage} are those of the quota decision the ledger acted on, carried on to the provisioner's summary of
 * the pool, which is where the pool's status learns them ({@link Verdicts}). {@code events} are the events the ledger
 * recorded about the pool with this decision (null: none); the provisioner records them with its own for the change the
 * decision leads to, so that they reach the pool in one record (a replay repeats their ids, which readers know).
 */
public record CapacityChecked(
        PoolRef pool,
        String reason,
        int requestedNodes,
        List<Grant> grants,
        int queuedNodes,
        Integer queuePosition,
        Integer queueLength,
        String message,
        Instant checkedAt,
        String quotaReason,
        String quotaMessage,
        List<RecordedEvent> events) {

    /** A decision that carries no events. */
    public CapacityChecked(
            PoolRef pool,
            String reason,
            int requestedNodes,
            List<Grant> grants,
            int queuedNodes,
            Integer queuePosition,
            Integer queueLength,
            String message,
            Instant checkedAt,
            String quotaReason,
            String quotaMessage) {
        this(
                pool,
                reason,
                requestedNodes,
                grants,
                queuedNodes,
                queuePosition,
                queueLength,
                message,
                checkedAt,
                quotaReason,
                quotaMessage,
                null);
    }

    /** A decision that carries no quota verdict and no events. */
    public CapacityChecked(
            PoolRef pool,
            String reason,
            int requestedNodes,
            List<Grant> grants,
            int queuedNodes,
            Integer queuePosition,
            Integer queueLength,
            String message,
            Instant checkedAt) {
        this(
                pool,
                reason,
                requestedNodes,
                grants,
                queuedNodes,
                queuePosition,
                queueLength,
                message,
                checkedAt,
                null,
                null);
    }

    /** The same decision listing {@code held} as the pool's grants. */
    public CapacityChecked withGrants(List<Grant> held) {
        return new CapacityChecked(
                pool,
                reason,
                requestedNodes,
                held,
                queuedNodes,
                queuePosition,
                queueLength,
                message,
                checkedAt,
                quotaReason,
                quotaMessage,
                events);
    }

    /** The same decision carrying {@code recorded} (null or empty: none). */
    public CapacityChecked withEvents(List<RecordedEvent> recorded) {
        return new CapacityChecked(
                pool,
                reason,
                requestedNodes,
                grants,
                queuedNodes,
                queuePosition,
                queueLength,
                message,
                checkedAt,
                quotaReason,
                quotaMessage,
                recorded == null || recorded.isEmpty() ? null : List.copyOf(recorded));
    }
}
