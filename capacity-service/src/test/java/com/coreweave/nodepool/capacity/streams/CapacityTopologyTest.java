package com.coreweave.nodepool.capacity.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.capacity.config.CapacitySettings;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.LedgerRecord;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The wiring around the ledger, without a broker: re-keying, tombstone routing, releases and dead letters. */
class CapacityTopologyTest {

  static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
  static final PoolRef POOL = new PoolRef("demo", "train", "uid-1", 1, "US-EAST-04A", "gd-8xa100-i128", "default");

  TopologyTestDriver driver;
  TestInputTopic<String, String> quota;
  TestInputTopic<String, String> nodes;
  TestInputTopic<String, String> fleet;
  TestOutputTopic<String, String> capacity;
  TestOutputTopic<String, String> dlq;

  @BeforeEach
  void start() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "capacity-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    driver = new TopologyTestDriver(CapacityTopology.build(new Defaults(), 1,
        Catalogue.fromResource("instance-types.yaml"), clock), props);
    var strings = Serdes.String();
    quota = driver.createInputTopic(Topics.QUOTA_CHECKED.name(), strings.serializer(), strings.serializer());
    nodes = driver.createInputTopic(Topics.NODEPOOL_NODES_CHANGED.name(), strings.serializer(), strings.serializer());
    fleet = driver.createInputTopic(Topics.FLEET_CHANGE_REQUESTED.name(), strings.serializer(), strings.serializer());
    capacity = driver.createOutputTopic(Topics.CAPACITY_CHECKED.name(), strings.deserializer(),
        strings.deserializer());
    dlq = driver.createOutputTopic("capacity-service-dlq", strings.deserializer(), strings.deserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  @Test
  void routesAQuotaTombstoneToThePoolsLedgerWhichFreesItsGrants() {
    setSize(1);
    quota.pipeInput("demo/train", Json.string(checked(POOL, 1)));
    PoolRef other = new PoolRef("demo", "other", "uid-2", 1, "US-EAST-04A", "gd-8xa100-i128", "default");
    quota.pipeInput("demo/other", Json.string(checked(other, 1)));
    capacity.readRecordsToList();

    quota.pipeInput("demo/train", (String) null);

    List<TestRecord<String, String>> out = capacity.readRecordsToList();
    assertThat(out).anyMatch(r -> r.key().equals("demo/train") && r.value() == null);
    CapacityChecked granted = Json.read(out.stream().filter(r -> r.key().equals("demo/other")).findFirst()
        .orElseThrow().value(), CapacityChecked.class);
    assertThat(granted.grants()).containsExactly(new Grant("us-east-04a-gd-8xa100-i128-0001", 2));
  }

  @Test
  void releasesOnNodeRemovedAndIgnoresOtherNodeFacts() {
    setSize(1);
    quota.pipeInput("demo/train", Json.string(checked(POOL, 1)));
    quota.pipeInput("demo/train", Json.string(checked(POOL, 0)));
    capacity.readRecordsToList();
    Grant grant = new Grant("us-east-04a-gd-8xa100-i128-0001", 1);
    Node node = new Node("v1", "Node", new Node.Meta("us-east-04a-gd-8xa100-i128-0001", NOW, null, null), null,
        null);

    nodes.pipeInput("demo/train", Json.string(new NodeFact.NodeAssigned(POOL, node, grant, NOW)));
    assertThat(capacity.readRecordsToList()).isEmpty();
    nodes.pipeInput("demo/train", Json.string(new NodeFact.NodeRemoved(POOL, node, grant, "ScaleDown", NOW)));

    CapacityChecked released = Json.read(capacity.readValue(), CapacityChecked.class);
    assertThat(released.grants()).isEmpty();
    assertThat(released.reason()).isNull();
  }

  @Test
  void neitherWritesTheLedgerNorPublishesForADecisionThatChangesNothing() {
    setSize(1);
    quota.pipeInput("demo/train", Json.string(checked(POOL, 1)));
    capacity.readRecordsToList();
    KeyValueStore<String, LedgerRecord> ledgers = driver.getKeyValueStore(StoreNames.LEDGERS);
    Map<String, LedgerRecord> stored = records(ledgers);
    assertThat(stored).containsKeys("US-EAST-04A/gd-8xa100-i128", "US-EAST-04A/gd-8xa100-i128/p/demo/train");

    quota.pipeInput("demo/train", Json.string(checked(POOL, 1)));

    assertThat(capacity.readRecordsToList()).isEmpty();
    assertThat(records(ledgers)).isEqualTo(stored);
  }

  private static Map<String, LedgerRecord> records(KeyValueStore<String, LedgerRecord> store) {
    Map<String, LedgerRecord> records = new TreeMap<>();
    try (var all = store.all()) {
      all.forEachRemaining(kv -> records.put(kv.key, kv.value));
    }
    return records;
  }

  @Test
  void sendsUnreadableAndUnservableRecordsToTheDeadLetterTopicAndGoesOn() {
    quota.pipeInput("demo/bad", "{not json");
    quota.pipeInput("demo/elsewhere", Json.string(checked(POOL, 1)));
    fleet.pipeInput("US-EAST-04A/gd-8xh200ib-i128", Json.string(new FleetChangeRequested("r-1", "US-EAST-04A",
        "gd-8xh200ib-i128", FleetChangeRequested.Operation.ADD, 1, null, NOW)));
    PoolRef nowhere = new PoolRef("demo", "h200", "uid-3", 1, "US-EAST-04A", "gd-8xh200ib-i128", "default");
    quota.pipeInput("demo/h200", Json.string(checked(nowhere, 2)));
    setSize(1);
    quota.pipeInput("demo/train", Json.string(checked(POOL, 1)));

    List<TestRecord<String, String>> dead = dlq.readRecordsToList();
    assertThat(dead).extracting(r -> header(r, DeadLetters.ERROR))
        .containsExactly("MalformedJson", "KeyMismatch", "InstanceTypeNotInZone", "InstanceTypeNotInZone");
    assertThat(dead.get(0).value()).isEqualTo("{not json");
    assertThat(header(dead.get(0), DeadLetters.SOURCE_TOPIC)).isEqualTo(Topics.QUOTA_CHECKED.name());
    assertThat(header(dead.get(0), DeadLetters.SERVICE)).isEqualTo("capacity-service");
    assertThat(Json.read(capacity.readValue(), CapacityChecked.class).grants()).hasSize(1);
  }

  @Test
  void deadLettersACatalogueRecordItWouldNeverHaveWrittenAndPassesItsOwn() {
    var catalogued = driver.createInputTopic(Topics.INSTANCE_TYPE_CATALOGUED.name(), Serdes.String().serializer(),
        Serdes.String().serializer());
    InstanceType a100 = Catalogue.fromResource("instance-types.yaml").all().stream()
        .filter(t -> t.name().equals("gd-8xa100-i128")).findFirst().orElseThrow();
    catalogued.pipeInput("gd-8xa100-i128", "{not json");
    catalogued.pipeInput("gd-8xa100-i128-elsewhere", Json.string(a100));
    catalogued.pipeInput("gd-8xa100-i128", Json.string(a100));

    List<TestRecord<String, String>> dead = dlq.readRecordsToList();
    assertThat(dead).extracting(r -> header(r, DeadLetters.ERROR)).containsExactly("MalformedJson", "KeyMismatch");
    assertThat(dead).extracting(r -> header(r, DeadLetters.SOURCE_TOPIC))
        .containsOnly(Topics.INSTANCE_TYPE_CATALOGUED.name());
  }

  private void setSize(int machines) {
    fleet.pipeInput("US-EAST-04A/gd-8xa100-i128", Json.string(new FleetChangeRequested("size-" + machines,
        "US-EAST-04A", "gd-8xa100-i128", FleetChangeRequested.Operation.SET_SIZE, machines, null, NOW)));
  }

  private static QuotaChecked checked(PoolRef pool, int admitted) {
    return new QuotaChecked(pool, "Under", admitted, admitted, null, admitted, false, "ok", NOW);
  }

  private static String header(TestRecord<String, String> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  /** The settings' defaults, as Quarkus would give them. */
  static final class Defaults implements CapacitySettings {
    public String catalogue() {
      return "instance-types.yaml";
    }

    public Duration fleetChangeTimeout() {
      return Duration.ofSeconds(10);
    }

    public Duration fleetChangePollInterval() {
      return Duration.ofMillis(50);
    }

    public int maxMachines() {
      return 10_000;
    }

    public int rememberedFleetChanges() {
      return 100;
    }
  }
}
