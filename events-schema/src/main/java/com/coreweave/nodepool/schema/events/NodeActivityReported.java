package com.coreweave.nodepool.schema.events;

import java.time.Instant;

/**
 * A platform team's report that a node runs work (active) or is idle; keyed {@code <org>/<pool>}. What
 * {@code CWActive} and the scale-down strategies read. {@code terminationGracePeriodSeconds} is the running
 * workload's grace period (30 s when absent), used when the node is drained.
 */
public record NodeActivityReported(String org, String pool, String node, boolean active,
                                   Integer terminationGracePeriodSeconds, Instant reportedAt) {
}
