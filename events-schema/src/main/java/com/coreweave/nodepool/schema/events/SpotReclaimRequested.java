package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.Limits;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The capacity-service asks for spot nodes back ({@code spot-reclaim-requested}, keyed {@code <org>/<pool>} of the spot
 * pool): the named nodes enter the preemption timeline. {@code reason} says who needs the capacity. A reclaim of many
 * nodes goes out as several records of the same reclaim ({@link #chunked}); each node's timeline starts from the record
 * that names it, so a reader needs none of the others.
 */
public record SpotReclaimRequested(
        String reclaimId, PoolRef pool, List<String> nodes, String reason, Instant requestedAt) {

    /** This reclaim as records of at most {@link Limits#MAX_NODES_PER_RECLAIM} nodes each, in order. */
    public List<SpotReclaimRequested> chunked() {
        List<SpotReclaimRequested> records = new ArrayList<>();
        for (int from = 0; from < nodes.size(); from += Limits.MAX_NODES_PER_RECLAIM) {
            records.add(new SpotReclaimRequested(
                    reclaimId,
                    pool,
                    List.copyOf(nodes.subList(from, Math.min(nodes.size(), from + Limits.MAX_NODES_PER_RECLAIM))),
                    reason,
                    requestedAt));
        }
        return records;
    }
}
