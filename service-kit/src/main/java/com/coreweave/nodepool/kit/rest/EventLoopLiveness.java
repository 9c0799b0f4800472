package com.coreweave.nodepool.kit.rest;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Not live while an HTTP event loop cannot run a task within {@link #BOUND}: a loop that is stuck serves none of the
 * connections it owns, so the orchestrator's restart is the remedy. (Streams is Quarkus' own liveness check: DOWN
 * unless the client is running or rebalancing, so a Streams client that died is restarted too.)
 */
@Liveness
@ApplicationScoped
public class EventLoopLiveness implements HealthCheck {

    /** How long an event loop may take to run an empty task before it counts as stuck. */
    static final Duration BOUND = Duration.ofSeconds(2);

    @Inject
    Vertx vertx;

    @Override
    public HealthCheckResponse call() {
        int stuck = stuck(vertx.nettyEventLoopGroup(), BOUND);
        return HealthCheckResponse.named("http-event-loops")
                .status(stuck == 0)
                .withData("stuckEventLoops", stuck)
                .build();
    }

    /** How many of {@code loops} did not run an empty task within {@code bound} (the caller's own loop is skipped). */
    static int stuck(Iterable<EventExecutor> loops, Duration bound) {
        List<Future<?>> probes = new ArrayList<>();
        for (EventExecutor loop : loops) {
            if (!loop.inEventLoop()) {
                probes.add(loop.submit(() -> {}));
            }
        }
        long deadline = System.nanoTime() + bound.toNanos();
        int stuck = 0;
        for (Future<?> probe : probes) {
            long left = Math.max(0, deadline - System.nanoTime());
            if (!probe.awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                stuck++;
            }
        }
        return stuck;
    }
}
