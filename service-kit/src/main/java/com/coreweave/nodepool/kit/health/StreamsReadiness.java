package com.coreweave.nodepool.kit.health;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.eclipse.microprofile.config.inject.ConfigProperty;
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
 *       {@code nodepool.health.stall-timeout} (60 s; {@link StreamProgress});
 *   <li>while an input partition assigned to this instance has had no running task for the stall timeout, with no store
 *       restoring meanwhile ({@link TaskStartWatch}): a task that never starts.
 * </ul>
 *
 * An instance stalled either way for {@code nodepool.health.liveness-timeout} (5 min) is not live either
 * ({@link StreamsLiveness}), so an orchestrator restarts it: the fault harness once saw a task that never started after
 * a broker crash, its cause not found yet (docs/reliability.md). The stall state is also a metric,
 * {@code nodepool_stream_tasks_stalled}, tasks that do not start {@code nodepool_stream_partitions_not_started}, and a
 * replace loop {@code nodepool_stream_thread_replace_loop}.
 */
@Readiness
@ApplicationScoped
public class StreamsReadiness implements HealthCheck, MeterBinder {

    /** What readiness says now: the Streams state, and each reason it is not ready (none when it is). */
    record Verdict(
            String state,
            List<String> problems,
            long stalledTasks,
            long partitionsNotStarted,
            boolean replaceLoop,
            Duration stalledFor) {

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
    RestoreProgress restores;

    @ConfigProperty(name = "quarkus.kafka-streams.application-server")
    String applicationServer;

    @Inject
    Clock clock;

    private StreamProgress progress;
    private TaskStartWatch starts;
    private boolean ranOnce;
    /** Since when a task has been stalled or not started (null: none is). */
    private Instant stalledSince;

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
                        "nodepool.stream.partitions.not.started",
                        this,
                        readiness -> readiness.verdict().partitionsNotStarted())
                .description("Input partitions assigned here with no running task for the stall timeout")
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
            starts = new TaskStartWatch(settings.stallTimeout());
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
        List<TopicPartition> notStarted =
                running ? starts.stuck(assignedNotRunning(threads), restores.restoredRecords(), now) : List.of();
        if (!notStarted.isEmpty()) {
            problems.add(notStarted.size() + " input partitions assigned here have had no running task for "
                    + settings.stallTimeout() + " or longer while no store restored anything (e.g. "
                    + notStarted.get(0) + ")");
        }
        boolean stuck = stalledTasks > 0 || !notStarted.isEmpty();
        if (!stuck) {
            stalledSince = null;
        } else if (stalledSince == null) {
            stalledSince = now;
        }
        Duration stalledFor = stalledSince == null ? Duration.ZERO : Duration.between(stalledSince, now);
        return new Verdict(state.name(), List.copyOf(problems), stalledTasks, notStarted.size(), looping, stalledFor);
    }

    /**
     * The input partitions the group assigned to this instance ({@code application.server}) that none of its running
     * tasks reads: tasks restoring, or not starting.
     */
    private Set<TopicPartition> assignedNotRunning(Set<ThreadMetadata> threads) {
        Set<TopicPartition> assigned = new HashSet<>();
        for (StreamsMetadata client : streams.metadataForAllStreamsClients()) {
            if (applicationServer.equals(
                    client.hostInfo().host() + ":" + client.hostInfo().port())) {
                assigned.addAll(client.topicPartitions());
            }
        }
        for (ThreadMetadata thread : threads) {
            for (TaskMetadata task : thread.activeTasks()) {
                assigned.removeAll(task.topicPartitions());
            }
        }
        return assigned;
    }
}
