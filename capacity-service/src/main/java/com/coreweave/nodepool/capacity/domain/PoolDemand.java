package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A pool's demand in one ledger: the incarnation and generation last decided by quota ({@code ref}), how many nodes
 * it is admitted to hold, its place in the queue while it waits ({@code ticket}: lower is earlier; null when it
 * does not wait), the generation it was last told capacity is insufficient for, and the {@code Capacity} reason it
 * was last published with (the rest of that {@code capacity-checked} follows from the ledger, see
 * {@link CapacityLedger}).
 */
public record PoolDemand(PoolRef ref, int demand, Long ticket, Instant waitingSince, long insufficientReported,
                         String publishedReason) {

  /**
   * Reads a stored pool; ledgers stored before {@code publishedReason} kept the whole {@code published}
   * {@code capacity-checked}, whose reason is all that is needed of it.
   */
  @JsonCreator
  static PoolDemand read(@JsonProperty("ref") PoolRef ref, @JsonProperty("demand") int demand,
                         @JsonProperty("ticket") Long ticket, @JsonProperty("waitingSince") Instant waitingSince,
                         @JsonProperty("insufficientReported") long insufficientReported,
                         @JsonProperty("publishedReason") String publishedReason,
                         @JsonProperty("published") CapacityChecked published) {
    return new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported,
        published == null ? publishedReason : published.reason());
  }

  public boolean spot() {
    return ref.spot();
  }

  PoolDemand withRef(PoolRef next, int nextDemand) {
    return new PoolDemand(next, nextDemand, ticket, waitingSince, insufficientReported, publishedReason);
  }

  PoolDemand waiting(Long nextTicket, Instant since) {
    return new PoolDemand(ref, demand, nextTicket, since, insufficientReported, publishedReason);
  }

  PoolDemand reportedInsufficient(long generation) {
    return new PoolDemand(ref, demand, ticket, waitingSince, generation, publishedReason);
  }

  PoolDemand withPublishedReason(String reason) {
    return new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported, reason);
  }
}
