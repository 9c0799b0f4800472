package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The planner's verdict on one workload ({@code workload-status}, compacted, keyed {@code <org>/<workload>}): still
 * {@code Pending} or {@code Scheduled} (no pod waits), the pool its nodes are asked of and how many, or why it waits
 * ({@code reason}, e.g. {@code GangDoesNotFit}, and a message). A tombstone once the workload is gone.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkloadStatus(
        String org,
        String name,
        String phase,
        int pods,
        boolean gang,
        String pool,
        int nodes,
        String reason,
        String message) {

    public static final String PENDING = "Pending";
    public static final String SCHEDULED = "Scheduled";

    public PoolKey key() {
        return new PoolKey(org, name);
    }
}
