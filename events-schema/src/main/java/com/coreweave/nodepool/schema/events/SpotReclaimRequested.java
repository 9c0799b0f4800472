package com.coreweave.nodepool.schema.events;

import java.time.Instant;
import java.util.List;

/**
 * The capacity-service asks for spot nodes back ({@code spot-reclaim-requested}, keyed {@code <org>/<pool>} of the
 * spot pool): the named nodes enter the preemption timeline. {@code reason} says who needs the capacity.
 */
public record SpotReclaimRequested(String reclaimId, PoolRef pool, List<String> nodes, String reason,
                                   Instant requestedAt) {
}
