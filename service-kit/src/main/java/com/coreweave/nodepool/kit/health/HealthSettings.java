package com.coreweave.nodepool.kit.health;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;

/** When readiness says a service's stream processing cannot make progress ({@link StreamsReadiness}). */
@ConfigMapping(prefix = "nodepool.health")
public interface HealthSettings {

    /**
     * How long a stream task may have records waiting while its committed position stands still before readiness says
     * DOWN: longer than a busy commit and a rebalance take, short enough to take a wedged instance out of rotation
     * within a minute.
     */
    @WithName("stall-timeout")
    @WithDefault("60s")
    Duration stallTimeout();

    /**
     * How long an instance may stay stalled (a task with records waiting and no commit, or one that does not start)
     * before it is not live either, so an orchestrator restarts it: long enough that a broker's failover and a large
     * restore never trigger it.
     */
    @WithName("liveness-timeout")
    @WithDefault("5m")
    Duration livenessTimeout();

    /** More replacements of stream threads than this within {@link #replaceLoopWindow()} are a replace loop. */
    @WithName("replace-loop.replacements")
    @WithDefault("5")
    int replaceLoopReplacements();

    @WithName("replace-loop.window")
    @WithDefault("5m")
    Duration replaceLoopWindow();
}
