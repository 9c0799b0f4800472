package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * What an autoscaling pool offers pending workloads ({@code pool-offered}, keyed {@code <org>}): the labels and taints
 * its nodes carry, where and of what type they are, how far it may grow, its {@code weight}, its nodes ({@code nodes}
 * present and not leaving, {@code spare} of them idle or still booting) and whether capacity keeps it waiting
 * ({@code queued} nodes, or {@code noneAvailable}). {@code withdrawn} says the pool offers nothing any more (deleted,
 * autoscaling turned off, not valid). Small and bounded: it never lists nodes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PoolOffer(
        String org,
        String pool,
        boolean withdrawn,
        String instanceType,
        String zone,
        Map<String, String> labels,
        List<Taint> taints,
        int minNodes,
        Integer maxNodes,
        int weight,
        int nodes,
        int spare,
        int queued,
        boolean noneAvailable) {

    public PoolOffer {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        taints = taints == null ? List.of() : List.copyOf(taints);
    }

    public static PoolOffer withdrawn(String org, String pool) {
        return new PoolOffer(org, pool, true, null, null, Map.of(), List.of(), 0, null, 0, 0, 0, 0, false);
    }

    public PoolKey key() {
        return new PoolKey(org, pool);
    }
}
