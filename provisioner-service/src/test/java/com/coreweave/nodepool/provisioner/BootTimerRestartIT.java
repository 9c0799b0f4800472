package com.coreweave.nodepool.provisioner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.provisioner.config.ProvisionerSettings;
import com.coreweave.nodepool.provisioner.streams.ProvisionerTopology;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRegistered;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.testing.KafkaResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's boot spans a restart of the service: the running instance assigns the node and stops; a new instance of the
 * same application, with an empty state directory, restores the stores from their changelogs and registers the node
 * when the original boot time is up (not a boot time after the restart), without assigning the grant again. Its own
 * profile, because stopping the service's Streams instance ends that application run.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
@TestProfile(BootTimerRestartIT.LongBoot.class)
class BootTimerRestartIT {

    static final Duration BOOT_TIME = Duration.ofSeconds(8);
    /** How late a due timer may fire: the 100 ms timer interval of the test profile, a commit, and a read. */
    static final Duration SLACK = Duration.ofSeconds(2);

    /** A boot long enough to span the restart. */
    public static class LongBoot implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("provisioner.boot-time", BOOT_TIME.toSeconds() + "s");
        }
    }

    @Inject
    KafkaStreams running;

    @Inject
    ProvisionerSettings settings;

    @Inject
    Clock clock;

    @Inject
    KafkaSettings kafka;

    @TempDir
    Path stateDir;

    @Test
    void aBootTimerFiresAtItsOriginalDeadlineAfterARestart() {
        try (PoolStandIn.Feeds feeds = PoolStandIn.Feeds.open(KafkaResource.bootstrapServers())) {
            PoolStandIn pool = new PoolStandIn(feeds, "restarted", 1);
            pool.accept(PoolStandIn.spec(1, Lifecycle.IDLE_ONLY));
            pool.settleCapacity();
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> assertThat(pool.facts(NodeAssigned.class)).hasSize(1));

            running.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
            assertThat(pool.facts(NodeRegistered.class)).as("stopped mid-boot").isEmpty();

            var topology =
                    ProvisionerTopology.build(settings.policy(), settings.timerInterval(), kafka.partitions(), clock);
            try (KafkaStreams restarted = new KafkaStreams(topology, restartedConfig(stateDir))) {
                restarted.start();
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> restarted.state() == KafkaStreams.State.RUNNING);
                Instant runningAgain = Instant.now();

                await().atMost(Duration.ofSeconds(60))
                        .untilAsserted(() ->
                                assertThat(pool.facts(NodeRegistered.class)).hasSize(1));

                NodeAssigned assigned = pool.facts(NodeAssigned.class).get(0);
                assertThat(pool.facts(NodeAssigned.class))
                        .as("the grant became a node once, across the restart")
                        .hasSize(1);
                Instant bootEnds = assigned.at().plus(BOOT_TIME);
                Instant registeredAt =
                        pool.facts(NodeRegistered.class).get(0).node().status().registeredAt();
                Instant latest = (bootEnds.isAfter(runningAgain) ? bootEnds : runningAgain).plus(SLACK);
                assertThat(registeredAt)
                        .as("fires at the stored deadline, or as soon as the restarted instance runs, "
                                + "not a whole boot time after the restart")
                        .isAfterOrEqualTo(bootEnds)
                        .isBeforeOrEqualTo(latest);
            }
        }
    }

    /** The service's own Streams settings, with a state directory of its own: everything comes from changelogs. */
    private static Properties restartedConfig(Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, ProvisionerTopology.SERVICE);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaResource.bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        return props;
    }
}
