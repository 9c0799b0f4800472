package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The pending demand the planner gives one autoscaling pool ({@code pool-demand-planned}, keyed {@code <org>/<pool>}):
 * the nodes its pending workloads need, how many workloads those are and the first few of their names
 * ({@link #MAX_NAMES}), and, when demand that fits this pool first cannot be met, why ({@code blocked}: a reason such
 * as {@code GangDoesNotFit}, and a message). Bounded whatever the number of workloads.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoolDemand(
        String org, String pool, int nodes, int workloads, List<String> names, String blocked, String message) {

    public static final int MAX_NAMES = 5;

    public PoolDemand {
        names = names == null ? List.of() : List.copyOf(names);
    }

    public static PoolDemand none(String org, String pool) {
        return new PoolDemand(org, pool, 0, 0, List.of(), null, null);
    }

    public PoolKey key() {
        return new PoolKey(org, pool);
    }
}
