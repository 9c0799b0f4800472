package com.coreweave.nodepool.api.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolStatus;
import com.coreweave.nodepool.schema.topics.Topics;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The status of a pool is published once per commit. The test driver commits after each input record, so one input
 * that changes a pool's status several times stands for a commit interval with several inputs.
 */
class StatusPerCommitTest {

  TopologyTestDriver driver;
  TestInputTopic<String, String> changes;
  TestOutputTopic<String, String> status;
  TestOutputTopic<String, String> events;

  @BeforeEach
  void start() {
    StreamsBuilder builder = new StreamsBuilder();
    // Each input is a comma-separated list of outputs of one pool, in order: a status, "-" for a deletion, "Removed"
    // for a deleted pool's last status, "event:<reason>" for an event.
    StatusPerCommit.route(builder.stream("changes", Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(list -> Arrays.stream(list.split(",")).map(StatusPerCommitTest::output).toList()));
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "status-per-commit-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(builder.build(), props);
    changes = driver.createInputTopic("changes", Serdes.String().serializer(), Serdes.String().serializer());
    status = driver.createOutputTopic(Topics.NODEPOOL_STATUS.name(), Serdes.String().deserializer(),
        Serdes.String().deserializer());
    events = driver.createOutputTopic(Topics.NODEPOOL_EVENTS.name(), Serdes.String().deserializer(),
        Serdes.String().deserializer());
  }

  private static Outbound output(String s) {
    if (s.equals("-")) {
      return Outbound.tombstone(Topics.NODEPOOL_STATUS);
    }
    if (s.startsWith("event:")) {
      return Outbound.to(Topics.NODEPOOL_EVENTS, Map.of("reason", s.substring("event:".length())));
    }
    if (s.equals("Removed")) {
      return Outbound.to(Topics.NODEPOOL_STATUS, new NodePool("compute.coreweave.com/v1alpha1", "NodePool", null, null,
          new NodePoolStatus(1L, List.of(Condition.of(Conditions.NODES_REMOVED, true,
              Conditions.NodesRemoved.COMPLETE, "removed")), 0, 0, 0, null, null, null)));
    }
    return Outbound.to(Topics.NODEPOOL_STATUS, Map.of("phase", s));
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void onlyThePoolsLastStatusOfACommitIsPublished() {
    changes.pipeInput("demo/a", "Validated,QuotaAdmitted,TargetMet");
    changes.pipeInput("demo/b", "Validated");

    assertThat(status.readKeyValuesToList()).containsExactly(
        KeyValue.pair("demo/a", "{\"phase\":\"TargetMet\"}"),
        KeyValue.pair("demo/b", "{\"phase\":\"Validated\"}"));
  }

  @Test
  void aDeletionIsPublishedAsATombstoneEvenForAPoolItNeverPublished() {
    changes.pipeInput("demo/a", "Validated,-");
    changes.pipeInput("demo/b", "Validated");
    changes.pipeInput("demo/b", "Deleting,-");

    assertThat(status.readKeyValuesToList()).containsExactly(
        KeyValue.pair("demo/a", null),
        KeyValue.pair("demo/b", "{\"phase\":\"Validated\"}"),
        KeyValue.pair("demo/b", null));
  }

  @Test
  void aDeletedPoolsLastStatusGoesOutBeforeItsTombstoneAndEventsAtOnce() {
    changes.pipeInput("demo/a", "Deleting,event:CWNodePoolDeleted,Removed,-");

    var published = status.readKeyValuesToList();
    assertThat(published).hasSize(2);
    assertThat(published.get(0).value).contains("\"reason\":\"Complete\"");
    assertThat(published.get(1).value).isNull();
    assertThat(events.readValuesToList()).containsExactly("{\"reason\":\"CWNodePoolDeleted\"}");
  }

  @Test
  void aPoolCreatedAgainAfterItsDeletionIsPublishedAgain() {
    changes.pipeInput("demo/a", "TargetMet");
    changes.pipeInput("demo/a", "-");
    changes.pipeInput("demo/a", "TargetMet");

    assertThat(status.readValuesToList()).containsExactly("{\"phase\":\"TargetMet\"}", null,
        "{\"phase\":\"TargetMet\"}");
  }
}
