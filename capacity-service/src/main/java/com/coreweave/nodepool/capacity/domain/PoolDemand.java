package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.PoolRef;
import java.time.Instant;

/**
 * A pool's demand in one ledger: the incarnation and generation last decided by quota ({@code ref}), how many nodes
 * it is admitted to hold, its place in the queue while it waits ({@code ticket}: lower is earlier; null when it
 * does not wait), the generation it was last told capacity is insufficient for, and what was last published for it.
 */
public record PoolDemand(PoolRef ref, int demand, Long ticket, Instant waitingSince, long insufficientReported,
                         CapacityChecked published) {

  public boolean spot() {
    return ref.spot();
  }

  PoolDemand withRef(PoolRef next, int nextDemand) {
    return new PoolDemand(next, nextDemand, ticket, waitingSince, insufficientReported, published);
  }

  PoolDemand waiting(Long nextTicket, Instant since) {
    return new PoolDemand(ref, demand, nextTicket, since, insufficientReported, published);
  }

  PoolDemand reportedInsufficient(long generation) {
    return new PoolDemand(ref, demand, ticket, waitingSince, generation, published);
  }

  PoolDemand withPublished(CapacityChecked checked) {
    return new PoolDemand(ref, demand, ticket, waitingSince, insufficientReported, checked);
  }
}
