package com.coreweave.nodepool.preemption.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;

/** The spot preemption timeline of the reference (004), all of its durations configurable. */
@ConfigMapping(prefix = "preemption")
public interface PreemptionSettings {

    /** From the Preemption pending warning (T+0) to the start of the drain; workloads keep running meanwhile. */
    @WithName("warning-period")
    @WithDefault("2m")
    Duration warningPeriod();

    /** From T+0 to the removal of a node that has not drained by then (the reference's seven-minute window). */
    @WithName("removal-deadline")
    @WithDefault("7m")
    Duration removalDeadline();

    /** From SIGTERM to SIGKILL when the node's workload reported no terminationGracePeriodSeconds. */
    @WithName("default-grace")
    @WithDefault("30s")
    Duration defaultGrace();

    /** How often the wall-clock punctuator fires the timeline steps that have come due. */
    @WithName("tick")
    @WithDefault("1s")
    Duration tick();

    /** How long a finished timeline is kept, so a repeated reclaim of it changes nothing, before it is pruned. */
    @WithName("finished-retention")
    @WithDefault("24h")
    Duration finishedRetention();
}
