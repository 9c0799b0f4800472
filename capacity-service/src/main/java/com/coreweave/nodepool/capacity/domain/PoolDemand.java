package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import java.time.Instant;
import java.util.List;

/**
 * A pool's demand in one ledger and what it holds there: the incarnation and generation last decided by quota
 * ({@code ref}), how many nodes it is admitted to hold, its place in the queue while it waits ({@code ticket}: lower
 * is earlier; null when it does not wait), the generation it was last told capacity is insufficient for, the
 * {@code Capacity} reason it was last published with (the rest of that {@code capacity-checked} follows from the
 * ledger, see {@link CapacityLedger}), its machines in the order they were granted (all of this incarnation: an
 * earlier one's are released before a new one is taken in), and the reason and message of the quota decision it was
 * admitted by, which its {@code capacity-checked} carries on.
 */
public record PoolDemand(PoolRef ref, int demand, Long ticket, Instant waitingSince, long insufficientReported,
                         String publishedReason, List<Holding> held, String quotaReason, String quotaMessage)
    implements LedgerRecord {

  public PoolDemand {
    held = held == null ? List.of() : List.copyOf(held);
  }

  static PoolDemand of(PoolRef ref, int demand) {
    return new PoolDemand(ref, demand, null, null, 0, null, List.of(), null, null);
  }

  public boolean spot() {
    return ref.spot();
  }

  /** Nodes it still waits for: what it is admitted to hold beyond what it holds. */
  public int queued() {
    return Math.max(0, demand - held.size());
  }

  /** The pool as quota decided it: the incarnation and generation, the demand, and the decision's reason. */
  PoolDemand decided(QuotaChecked checked, int nextDemand) {
    return new PoolDemand(checked.pool(), nextDemand, ticket, waitingSince, insufficientReported, publishedReason,
        held, checked.reason(), checked.message());
  }

  PoolDemand waiting(Long nextTicket, Instant since) {
    return new PoolDemand(ref, demand, nextTicket, since, insufficientReported, publishedReason, held, quotaReason,
        quotaMessage);
  }

  PoolDemand reportedInsufficient(long generation) {
    return new PoolDemand(ref, demand, ticket, waitingSince, generation, publishedReason, held, quotaReason,
        quotaMessage);
  }

  PoolDemand withPublishedReason(String reason) {
    return new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported, reason, held, quotaReason,
        quotaMessage);
  }

  PoolDemand withHeld(List<Holding> next) {
    return new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported, publishedReason, next, quotaReason,
        quotaMessage);
  }
}
