package com.coreweave.nodepool.provisioner.streams;

import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.KEY;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.T0;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.grants;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.json;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.pool;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.ProvisioningPolicy;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.topics.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pool's {@code NodePoolReconciled} is written once per commit, its last: the processor holds it until the pool's
 * head is flushed (FlushedOutputs).
 *
 * <p>The driver commits after each input record, so one input that reconciles the pool twice stands for two inputs
 * in one commit: with boots that take no time, a grant assigns a node (one summary, the node booting) and the boot,
 * already due, registers it at once (a second summary, the node registered).
 */
class SummaryPerCommitTest {

  private TopologyTestDriver driver;
  private TestOutputTopic<String, String> nodes;

  @TempDir
  Path stateDir;

  @BeforeEach
  void start() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "summary-per-commit-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    var instantBoots = new ProvisioningPolicy(Duration.ZERO, 0.0, 0, Set.of(), 3, Duration.ofSeconds(30), 1,
        ProvisioningPolicy.SCALE_UP_AFTER, ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
    ProvisionerTopologyTest.MovingClock clock = new ProvisionerTopologyTest.MovingClock();
    driver = new TopologyTestDriver(ProvisionerTopology.build(instantBoots, Duration.ofMillis(500), 1, clock), props,
        T0);
    nodes = driver.createOutputTopic(Topics.NODEPOOL_NODES_CHANGED.name(), new StringDeserializer(),
        new StringDeserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void shouldWriteOnlyThePoolsLastSummaryWhenItChangesTwiceInOneCommit() {
    TestInputTopic<String, byte[]> accepted = input(Topics.NODEPOOL_ACCEPTED.name());
    TestInputTopic<String, byte[]> capacity = input(Topics.CAPACITY_CHECKED.name());
    accepted.pipeInput(KEY, json(pool(1)));

    capacity.pipeInput(KEY, json(grants(new Grant("m-1", 11))));

    List<NodeFact> facts = nodes.readValuesToList().stream().map(v -> Json.read(v, NodeFact.class)).toList();
    assertThat(facts).filteredOn(NodeFact.NodePoolReconciled.class::isInstance).singleElement()
        .satisfies(summary -> {
          NodeFact.NodePoolReconciled last = (NodeFact.NodePoolReconciled) summary;
          assertThat(last.currentNodes()).as("the node registered").isEqualTo(1);
          assertThat(last.inProgress()).as("no summary of the node still booting").isZero();
        });
    assertThat(facts.getLast()).as("after the node facts it sums up").isInstanceOf(NodeFact.NodePoolReconciled.class);
  }

  private TestInputTopic<String, byte[]> input(String topic) {
    return driver.createInputTopic(topic, new StringSerializer(), new ByteArraySerializer());
  }
}
