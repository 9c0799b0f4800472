package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/**
 * A platform team's report that a node runs work (active) or is idle; keyed {@code <org>/<pool>}. What {@code CWActive}
 * and the scale-down strategies read. {@code terminationGracePeriodSeconds} is the running workload's grace period (30
 * s when absent), used when the node is drained. {@code disruptionsAllowed}, optional, is what the workload's
 * PodDisruptionBudget allows now: 0 means no pod may be evicted, so a drain of the node is blocked
 * ({@code CWNodeDrainingPDBViolation}) until the report changes or the grace period ends. {@code doNotDisrupt},
 * optional, says the running workload must not be interrupted by the platform's own choice (Karpenter's
 * {@code do-not-disrupt}): while the node stays busy no voluntary disruption picks it.
 */
public record NodeActivityReported(
        String org,
        String pool,
        String node,
        boolean active,
        Integer terminationGracePeriodSeconds,
        Instant reportedAt,
        Integer disruptionsAllowed,
        Boolean doNotDisrupt) {

    /** A report that says nothing about holding the node. */
    public NodeActivityReported(
            String org,
            String pool,
            String node,
            boolean active,
            Integer terminationGracePeriodSeconds,
            Instant reportedAt,
            Integer disruptionsAllowed) {
        this(org, pool, node, active, terminationGracePeriodSeconds, reportedAt, disruptionsAllowed, null);
    }

    /** A report that says nothing about a disruption budget. */
    public NodeActivityReported(
            String org,
            String pool,
            String node,
            boolean active,
            Integer terminationGracePeriodSeconds,
            Instant reportedAt) {
        this(org, pool, node, active, terminationGracePeriodSeconds, reportedAt, null, null);
    }

    /** Whether the workload's disruption budget allows no eviction now. */
    @JsonIgnore
    public boolean drainBlocked() {
        return disruptionsAllowed != null && disruptionsAllowed == 0;
    }

    /** Whether the workload asks that no voluntary disruption pick its node while it runs. */
    @JsonIgnore
    public boolean holdsNode() {
        return active && Boolean.TRUE.equals(doNotDisrupt);
    }
}
