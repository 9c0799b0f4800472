package com.coreweave.nodepool.schema.events;

import java.time.Instant;
import java.util.List;

/**
 * The capacity-service's ledger entry for one pool (compacted {@code capacity-checked}, keyed {@code <org>/<pool>}):
 * every machine currently allocated to it and how many more it waits for. {@code reason} is the {@code Capacity}
 * condition's reason, or {@code null} for a pool that asks for nothing and holds nothing. {@code queuePosition}
 * (1-based) and {@code queueLength} describe the FIFO queue of its zone and type when it waits. {@code quotaReason} and
 * {@code quotaMessage} are those of the quota decision the ledger acted on, carried on to the provisioner's summary of
 * the pool, which is where the pool's status learns them ({@link Verdicts}).
 */
public record CapacityChecked(PoolRef pool, String reason, int requestedNodes, List<Grant> grants, int queuedNodes,
                              Integer queuePosition, Integer queueLength, String message, Instant checkedAt,
                              String quotaReason, String quotaMessage) {

  /** A decision that carries no quota verdict. */
  public CapacityChecked(PoolRef pool, String reason, int requestedNodes, List<Grant> grants, int queuedNodes,
                         Integer queuePosition, Integer queueLength, String message, Instant checkedAt) {
    this(pool, reason, requestedNodes, grants, queuedNodes, queuePosition, queueLength, message, checkedAt, null,
        null);
  }
}
