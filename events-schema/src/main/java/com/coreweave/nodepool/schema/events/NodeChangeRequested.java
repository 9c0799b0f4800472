package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A user's change of one node of a pool, as kubectl makes it through the core Node API (inbound
 * {@code node-change-requested}, keyed {@code <org>/<pool>}; only the api-service writes it): a cordon or uncordon,
 * labels and annotations set or removed, the user's taints, or the eviction of the node's workload ({@code kubectl
 * drain}). The provisioner keeps what the user set beside what the platform sets, so neither undoes the other. A field
 * left null changes nothing; {@code uid} ties the request to one incarnation of the pool.
 *
 * @param unschedulable the user's cordon ({@code kubectl cordon}/{@code uncordon}); null leaves it as it is
 * @param labels user labels to set (key to value)
 * @param removedLabels user labels to remove
 * @param annotations user annotations to set
 * @param removedAnnotations user annotations to remove
 * @param taints the user's taints in full (null leaves them as they are, empty removes them all)
 * @param evicted whether the node's workload was evicted (or its pod deleted), which the api-service checked against
 *     its disruption budget: the node counts as idle until it is reported busy again
 */
public record NodeChangeRequested(
        String id,
        String org,
        String pool,
        String uid,
        String node,
        Boolean unschedulable,
        Map<String, String> labels,
        List<String> removedLabels,
        Map<String, String> annotations,
        List<String> removedAnnotations,
        List<Taint> taints,
        boolean evicted,
        Instant requestedAt) {}
