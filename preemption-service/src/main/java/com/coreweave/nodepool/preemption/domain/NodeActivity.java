package com.coreweave.nodepool.preemption.domain;

import com.coreweave.nodepool.schema.events.NodeActivityReported;
import java.time.Instant;

/** What a node's workload last reported: running or idle, and how long it needs between SIGTERM and SIGKILL. */
public record NodeActivity(boolean active, Integer terminationGracePeriodSeconds, Instant reportedAt) {

    public static NodeActivity of(NodeActivityReported report) {
        return new NodeActivity(report.active(), report.terminationGracePeriodSeconds(), report.reportedAt());
    }

    /** The report to keep: a report older than the one held (delivered late) does not replace it. */
    public static NodeActivity latest(NodeActivity held, NodeActivity incoming) {
        if (held == null || held.reportedAt() == null || incoming.reportedAt() == null) {
            return incoming;
        }
        return incoming.reportedAt().isBefore(held.reportedAt()) ? held : incoming;
    }

    boolean idle() {
        return !active;
    }
}
