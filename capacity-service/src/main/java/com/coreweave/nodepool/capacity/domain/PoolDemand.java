package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/**
 * A pool's demand in one ledger: the incarnation and generation last decided by quota ({@code ref}), how many nodes
 * it is admitted to hold, its place in the queue while it waits ({@code ticket}: lower is earlier; null when it does
 * not wait), the generation it was last told capacity is insufficient for, the {@code Capacity} reason it was last
 * published with (the rest of that {@code capacity-checked} follows from the ledger, see {@link CapacityLedger}), and
 * the reason and message of the quota decision it was admitted by, which its {@code capacity-checked} carries on. The
 * machines it holds are records of their own ({@link HeldMachine}), so this record stays small whatever the pool's
 * size. {@code legacyHeld} is what a pool record of an earlier version listed itself (null for this version's), read
 * back so that an upgrade keeps every grant; the ledger writes it out machine by machine with its first change.
 */
public record PoolDemand(PoolRef ref, int demand, Long ticket, Instant waitingSince, long insufficientReported,
                         String publishedReason, String quotaReason, String quotaMessage,
                         @JsonIgnore List<Holding> legacyHeld) implements LedgerRecord {

  @JsonCreator
  static PoolDemand read(@JsonProperty("ref") PoolRef ref, @JsonProperty("demand") int demand,
                         @JsonProperty("ticket") Long ticket, @JsonProperty("waitingSince") Instant waitingSince,
                         @JsonProperty("insufficientReported") long insufficientReported,
                         @JsonProperty("publishedReason") String publishedReason,
                         @JsonProperty("quotaReason") String quotaReason,
                         @JsonProperty("quotaMessage") String quotaMessage,
                         @JsonProperty("held") List<Holding> held) {
    return new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported, publishedReason, quotaReason,
        quotaMessage, held);
  }

  static PoolDemand of(PoolRef ref, int demand) {
    return new PoolDemand(ref, demand, null, null, 0, null, null, null, null);
  }

  public boolean spot() {
    return ref.spot();
  }

  /** Nodes it still waits for, holding {@code held} machines: what it is admitted to hold beyond them. */
  public int queued(int held) {
    return Math.max(0, demand - held);
  }

  /** The pool as this version keeps it: without what an earlier version's record listed itself. */
  PoolDemand withoutLegacy() {
    return legacyHeld == null ? this : new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported,
        publishedReason, quotaReason, quotaMessage, null);
  }

  /** The pool as quota decided it: the incarnation and generation, the demand, and the decision's reason. */
  PoolDemand decided(QuotaChecked checked, int nextDemand) {
    return new PoolDemand(checked.pool(), nextDemand, ticket, waitingSince, insufficientReported, publishedReason,
        checked.reason(), checked.message(), null);
  }

  PoolDemand waiting(Long nextTicket, Instant since) {
    return new PoolDemand(ref, demand, nextTicket, since, insufficientReported, publishedReason, quotaReason,
        quotaMessage, null);
  }

  PoolDemand reportedInsufficient(long generation) {
    return new PoolDemand(ref, demand, ticket, waitingSince, generation, publishedReason, quotaReason, quotaMessage,
        null);
  }

  PoolDemand withPublishedReason(String reason) {
    return new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported, reason, quotaReason, quotaMessage,
        null);
  }
}
