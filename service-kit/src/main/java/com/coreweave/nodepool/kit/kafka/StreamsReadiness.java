package com.coreweave.nodepool.kit.kafka;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready while the service's stream processing can make progress. DOWN:
 *
 * <ul>
 *   <li>before the Streams topology first runs: the stores cannot be read and the admin APIs that wait on them would
 *       answer 503 (Quarkus' own readiness check only says that the topics exist). A rebalance after the first start
 *       keeps the instance ready, as its stores come back within moments;
 *   <li>while no stream thread is left;
 *   <li>in a replace loop ({@link ReplaceLoop}, counted by {@link StreamThreadRecovery});
 *   <li>while a stream task has records waiting and its committed position has not moved for
 *       {@code nodepool.health.stall-timeout} (60 s; {@link StreamProgress}).
 * </ul>
 *
 * Liveness stays as Quarkus has it (DOWN only once the Streams client stopped): an instance that is stuck is taken out
 * of rotation, and whether restarting it helps is the orchestrator's decision, not a health check's; a restart would
 * meet the same record. The stall state is also a metric, {@code nodepool_stream_tasks_stalled}, and a replace loop
 * {@code nodepool_stream_thread_replace_loop}.
 */
@Readiness
@ApplicationScoped
public class StreamsReadiness implements HealthCheck, MeterBinder {

    /** What readiness says now: the Streams state, and each reason it is not ready (none when it is). */
    record Verdict(String state, List<String> problems, long stalledTasks, boolean replaceLoop) {

        boolean ready() {
            return problems.isEmpty();
        }
    }

    @Inject
    KafkaStreams streams;

    @Inject
    StreamThreadRecovery recovery;

    @Inject
    HealthSettings settings;

    @Inject
    Clock clock;

    private StreamProgress progress;
    private boolean ranOnce;

    @Override
    public HealthCheckResponse call() {
        Verdict verdict = verdict();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("kafka-streams-running")
                .status(verdict.ready())
                .withData("state", verdict.state());
        for (int i = 0; i < verdict.problems().size(); i++) {
            response.withData(
                    verdict.problems().size() == 1 ? "reason" : "reason." + (i + 1),
                    verdict.problems().get(i));
        }
        return response.build();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(
                        "nodepool.stream.tasks.stalled",
                        this,
                        readiness -> readiness.verdict().stalledTasks())
                .description("Stream tasks with records waiting and no progress for the stall timeout")
                .register(registry);
        Gauge.builder(
                        "nodepool.stream.thread.replace.loop",
                        this,
                        readiness -> readiness.verdict().replaceLoop() ? 1 : 0)
                .description("1 while stream threads are replaced in a loop")
                .register(registry);
    }

    synchronized Verdict verdict() {
        if (progress == null) {
            progress = new StreamProgress(settings.stallTimeout());
        }
        Instant now = clock.instant();
        KafkaStreams.State state = streams.state();
        ranOnce |= state == KafkaStreams.State.RUNNING;
        List<String> problems = new ArrayList<>();
        boolean running = state == KafkaStreams.State.RUNNING || (ranOnce && state == KafkaStreams.State.REBALANCING);
        if (!running) {
            problems.add("Kafka Streams is " + state);
        }
        Set<ThreadMetadata> threads = running ? streams.metadataForLocalThreads() : Set.of();
        if (running && threads.isEmpty()) {
            problems.add("no stream thread is left");
        }
        ReplaceLoop loop = recovery.replaceLoop();
        boolean looping = loop.looping(now);
        if (looping) {
            problems.add(loop.recent(now) + " stream thread replacements within " + loop.window()
                    + ": a thread fails the same way each time");
        }
        List<StreamProgress.Position> stalled = progress.stalled(StreamProgress.positions(threads), now);
        for (StreamProgress.Position position : stalled) {
            problems.add("task " + position.task() + " has records waiting on " + position.partition()
                    + " and has not committed for " + progress.timeout() + " or longer (committed "
                    + position.committed()
                    + ", fetched up to " + position.lastFetched() + ")");
        }
        long stalledTasks =
                stalled.stream().map(StreamProgress.Position::task).distinct().count();
        return new Verdict(state.name(), List.copyOf(problems), stalledTasks, looping);
    }
}
