package com.coreweave.nodepool.preemption;

import static com.coreweave.nodepool.preemption.PreemptionFacts.ofNode;
import static com.coreweave.nodepool.preemption.PreemptionFacts.only;
import static com.coreweave.nodepool.preemption.PreemptionFacts.phases;
import static com.coreweave.nodepool.preemption.PreemptionFacts.preempted;
import static com.coreweave.nodepool.preemption.PreemptionFacts.reached;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.PreemptionFact.NodePreempted;
import com.coreweave.nodepool.schema.events.PreemptionFact.PreemptionInProgress;
import com.coreweave.nodepool.schema.events.PreemptionFact.PreemptionPending;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.ChildProcess;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of the service in the middle of two timelines, one draining and one pending, against the real broker. The
 * packaged service runs as a child process (its own JVM, this JVM's broker), so the kill is a real SIGKILL: no shutdown
 * hook, no final commit. It restarts on the same state directory, as a restarted pod on its volume. Failsafe runs this
 * class in a JVM of its own, so no @QuarkusTest instance of the service shares its broker.
 */
class PreemptionRestartIT {

    /** A port of its own, beside the @QuarkusTest port (NODEPOOL_TEST_PORT_PREFIX + "85"). */
    static final int PORT = Integer.parseInt(System.getenv().getOrDefault("NODEPOOL_TEST_PORT_PREFIX", "181") + "85");

    static final Duration WAIT = Duration.ofSeconds(60);
    /** How late the removal may fire after its time: a 100 ms tick, the commit it asks for, a busy machine. */
    static final Duration SLACK = Duration.ofSeconds(2);

    static final PoolRef POOL =
            new PoolRef("demo", "spot-restart", "uid-spot-restart", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");

    @Test
    void aServiceKilledMidTimelineKeepsEveryNodesSchedule() throws Exception {
        // The warning period leaves time to kill the service after seeing pending-node's warning and before its drain;
        // the deadline leaves time for the restart (JVM start, the dead member's 6 s session, state restore) to finish
        // first, so that the test sees the removals fire at their original times rather than late.
        Map<String, String> config = Map.of(
                "kafka.bootstrap.servers", KafkaResource.bootstrapServers(),
                "kafka-streams.state.dir",
                        Files.createTempDirectory(Path.of("target"), "restart-it-state")
                                .toString(),
                "preemption.warning-period", "5s",
                "preemption.removal-deadline", "35s",
                "preemption.tick", "100ms");
        String key = POOL.key().toString();
        try (TopicProbe probe = new TopicProbe(KafkaResource.bootstrapServers())) {
            ChildProcess first = service(config, "first");
            Instant killed;
            try (first) {
                awaitReady(first);
                // Both workloads want ten minutes of grace: only the deadline removes their nodes.
                report(probe, "draining-node");
                report(probe, "pending-node");
                reclaim(probe, "r-draining", "draining-node");
                PreemptionFacts.progressed(probe, key, reached("draining-node", PreemptionInProgress.class), WAIT);
                reclaim(probe, "r-pending", "pending-node");
                PreemptionFacts.progressed(probe, key, reached("pending-node", PreemptionPending.class), WAIT);

                first.kill9();
                killed = Instant.now();
            }
            try (ChildProcess second = service(config, "second")) {
                awaitReady(second);
                Instant restarted = Instant.now();

                List<PreemptionFact> facts =
                        PreemptionFacts.progressed(probe, key, preempted("draining-node", "pending-node"), WAIT);

                for (String node : List.of("draining-node", "pending-node")) {
                    assertThat(phases(ofNode(facts, node)))
                            .as("no phase of %s skipped or repeated", node)
                            .containsExactly("PreemptionPending", "PreemptionInProgress", "NodePreempted");
                }
                assertThat(only(facts, "pending-node", PreemptionInProgress.class)
                                .evictedAt())
                        .as("the drain that came due while the service was down fired after the restart")
                        .isAfter(killed);
                for (String node : List.of("draining-node", "pending-node")) {
                    PreemptionPending pending = only(facts, node, PreemptionPending.class);
                    PreemptionInProgress draining = only(facts, node, PreemptionInProgress.class);
                    NodePreempted removed = only(facts, node, NodePreempted.class);
                    assertThat(restarted)
                            .as("the service was back before %s's deadline", node)
                            .isBefore(pending.removeBy());
                    assertThat(draining.evictedAt()).isAfterOrEqualTo(pending.drainAt());
                    assertThat(draining.removeBy())
                            .as("not restarted from zero")
                            .isEqualTo(pending.removeBy());
                    assertThat(removed.pendingAt()).isEqualTo(pending.pendingAt());
                    assertThat(removed.cause()).isEqualTo("Deadline");
                    assertThat(removed.removedAt())
                            .as("%s removed at its original time", node)
                            .isBetween(pending.removeBy(), pending.removeBy().plus(SLACK));
                }
            }
        }
    }

    static void report(TopicProbe probe, String node) {
        probe.sendJson(
                Topics.NODE_ACTIVITY_REPORTED.name(),
                POOL.key().toString(),
                new NodeActivityReported(POOL.org(), POOL.pool(), node, true, 600, Instant.now()));
    }

    static void reclaim(TopicProbe probe, String reclaimId, String node) {
        probe.sendJson(
                Topics.SPOT_RECLAIM_REQUESTED.name(),
                POOL.key().toString(),
                new SpotReclaimRequested(reclaimId, POOL, List.of(node), "reserved demand waits", Instant.now()));
    }

    /**
     * The packaged preemption-service ({@code target/quarkus-app}, built by {@code package} before failsafe runs) with
     * {@code config} as system properties, launched as a child process so the test can SIGKILL it as an operator's kill
     * -9 would.
     */
    static ChildProcess service(Map<String, String> config, String name) {
        String jar = System.getProperty("packaged.service.jar");
        if (jar == null || !Files.exists(Path.of(jar))) {
            throw new IllegalStateException("the packaged service (system property packaged.service.jar, " + jar
                    + ") is missing: run this test through 'mvnw verify', which packages the service first");
        }
        List<String> command = new ArrayList<>(List.of(
                ChildProcess.java(),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-Dquarkus.http.port=" + PORT,
                // The packaged service runs its prod profile, which demands the peers' shared secret.
                "-Dnodepool.auth.peer-secret=restart-it-only-peer-assertion-secret-not-for-deployments"));
        config.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.addAll(List.of("-jar", jar));
        ChildProcess service = new ChildProcess(name, command, Path.of("target", "restart-it", name + ".log"));
        service.launch();
        return service;
    }

    static void awaitReady(ChildProcess service) {
        URI ready = URI.create("http://localhost:" + PORT + "/q/health/ready");
        service.awaitReady(() -> ChildProcess.answersOk(ready), WAIT);
    }
}
