package com.coreweave.nodepool.provisioner.streams;

import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.KEY;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.T0;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.grants;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.json;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.pool;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.StreamsDriver;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.streams.TestOutputTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pool's {@code NodePoolReconciled} is written once per commit, its last: the processor holds it until the pool's
 * head is flushed (FlushedOutputs).
 *
 * <p>The driver commits after each input record, so one input that reconciles the pool twice stands for two inputs in
 * one commit: with boots that take no time, a grant assigns a node (one summary, the node booting) and the boot,
 * already due, registers it at once (a second summary, the node registered).
 */
class SummaryPerCommitTest {

    private StreamsDriver driver;

    @BeforeEach
    void start() {
        var instantBoots = new ProvisioningPolicy(
                Duration.ZERO,
                0.0,
                0,
                Set.of(),
                3,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
        driver = StreamsDriver.start(
                "summary-per-commit-test",
                T0,
                clock -> ProvisionerTopology.build(instantBoots, Duration.ofMillis(500), 1, clock));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void shouldWriteOnlyThePoolsLastSummaryWhenItChangesTwiceInOneCommit() {
        TestOutputTopic<String, String> nodes = driver.output(Topics.NODEPOOL_NODES_CHANGED);
        driver.bytesInput(Topics.NODEPOOL_ACCEPTED).pipeInput(KEY, json(pool(1)));

        driver.bytesInput(Topics.CAPACITY_CHECKED).pipeInput(KEY, json(grants(new Grant("m-1", 11))));

        List<NodeFact> facts = nodes.readValuesToList().stream()
                .map(v -> Json.read(v, NodeFact.class))
                .toList();
        assertThat(facts)
                .filteredOn(NodeFact.NodePoolReconciled.class::isInstance)
                .singleElement()
                .satisfies(summary -> {
                    NodeFact.NodePoolReconciled last = (NodeFact.NodePoolReconciled) summary;
                    assertThat(last.currentNodes()).as("the node registered").isEqualTo(1);
                    assertThat(last.inProgress())
                            .as("no summary of the node still booting")
                            .isZero();
                });
        assertThat(facts.getLast())
                .as("after the node facts it sums up")
                .isInstanceOf(NodeFact.NodePoolReconciled.class);
    }
}
