package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import java.time.Instant;

/**
 * A pool's demand in one ledger: what quota admitted it to hold, and where it stands in the queue.
 *
 * <ul>
 *   <li>{@code ref}: the incarnation and generation last decided by quota; {@code demand}: how many nodes it is
 *       admitted to hold.
 *   <li>{@code ticket}: its place in the queue while it waits (lower is earlier; null when it does not wait).
 *   <li>{@code insufficientReported}: the generation it was last told capacity is insufficient for.
 *   <li>{@code publishedReason}: the {@code Capacity} reason it was last published with; the rest of that
 *       {@code capacity-checked} follows from the ledger (see {@link CapacityLedger}).
 *   <li>{@code quotaReason}, {@code quotaMessage}: the quota decision it was admitted by, which its
 *       {@code capacity-checked} carries on.
 *   <li>The machines it holds are records of their own ({@link HeldMachine}), so this one stays small whatever the
 *       pool's size.
 * </ul>
 */
public record PoolDemand(
        PoolRef ref,
        int demand,
        Long ticket,
        Instant waitingSince,
        long insufficientReported,
        String publishedReason,
        String quotaReason,
        String quotaMessage)
        implements LedgerRecord {

    static PoolDemand of(PoolRef ref, int demand) {
        return new PoolDemand(ref, demand, null, null, 0, null, null, null);
    }

    public boolean spot() {
        return ref.spot();
    }

    /** Nodes it still waits for, holding {@code held} machines: what it is admitted to hold beyond them. */
    public int queued(int held) {
        return Math.max(0, demand - held);
    }

    /** The pool as quota decided it: the incarnation and generation, the demand, and the decision's reason. */
    PoolDemand decided(QuotaChecked checked, int nextDemand) {
        return new PoolDemand(
                checked.pool(),
                nextDemand,
                ticket,
                waitingSince,
                insufficientReported,
                publishedReason,
                checked.reason(),
                checked.message());
    }

    PoolDemand waiting(Long nextTicket, Instant since) {
        return new PoolDemand(
                ref, demand, nextTicket, since, insufficientReported, publishedReason, quotaReason, quotaMessage);
    }

    PoolDemand reportedInsufficient(long generation) {
        return new PoolDemand(
                ref, demand, ticket, waitingSince, generation, publishedReason, quotaReason, quotaMessage);
    }

    PoolDemand withPublishedReason(String reason) {
        return new PoolDemand(
                ref, demand, ticket, waitingSince, insufficientReported, reason, quotaReason, quotaMessage);
    }
}
