package com.coreweave.nodepool.capacity.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.capacity.config.CapacitySettings;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.Inputs;
import com.coreweave.nodepool.capacity.domain.LedgerRecord;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.StreamsDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The wiring around the ledger, without a broker: demands by ledger, departures, releases and dead letters. */
class CapacityTopologyTest {

    static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
    static final PoolRef POOL = new PoolRef("demo", "train", "uid-1", 1, "US-EAST-04A", "gd-8xa100-i128", "default");

    StreamsDriver driver;
    static final String LEDGER = "US-EAST-04A/gd-8xa100-i128";

    TestInputTopic<String, String> demands;
    TestInputTopic<String, String> nodes;
    TestInputTopic<String, String> fleet;
    TestOutputTopic<String, String> capacity;
    TestOutputTopic<String, String> dlq;

    @BeforeEach
    void start() {
        driver = StreamsDriver.start(
                "capacity-test",
                NOW,
                clock -> CapacityTopology.build(
                        new Defaults(), 1, Catalogue.fromResource("instance-types.yaml"), clock));
        demands = driver.input(Topics.CAPACITY_DEMANDED);
        nodes = driver.input(Topics.NODEPOOL_NODES_CHANGED);
        fleet = driver.input(Topics.FLEET_CHANGE_REQUESTED);
        capacity = driver.output(Topics.CAPACITY_CHECKED);
        dlq = driver.output("capacity-service-dlq");
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void aPoolThatLeftItsQuotaFreesItsGrantsForTheNextInLine() {
        PoolRef other = new PoolRef("demo", "other", "uid-2", 1, "US-EAST-04A", "gd-8xa100-i128", "default");
        holdThenLeave(other);

        List<TestRecord<String, String>> out = capacity.readRecordsToList();
        assertThat(out).anyMatch(r -> r.key().equals("demo/train") && r.value() == null);
        CapacityChecked granted = Json.read(
                out.stream()
                        .filter(r -> r.key().equals("demo/other"))
                        .findFirst()
                        .orElseThrow()
                        .value(),
                CapacityChecked.class);
        assertThat(granted.grants()).containsExactly(new Grant("us-east-04a-gd-8xa100-i128-0001", 2));
    }

    @Test
    void theDepartureOfAnEarlierIncarnationLeavesTheCurrentOneItsGrants() {
        PoolRef again = new PoolRef("demo", "train", "uid-9", 1, "US-EAST-04A", "gd-8xa100-i128", "default");
        holdThenLeave(again);
        assertThat(capacity.readRecordsToList())
                .as("nothing changed for the pool")
                .isEmpty();
        PoolRef other = new PoolRef("demo", "other", "uid-2", 1, "US-EAST-04A", "gd-8xa100-i128", "default");
        demand(other, 1);

        CapacityChecked waiting = Json.read(capacity.readValue(), CapacityChecked.class);
        assertThat(waiting.pool()).isEqualTo(other);
        assertThat(waiting.grants())
                .as("the one machine is still the re-created pool's")
                .isEmpty();
        assertThat(waiting.queuedNodes()).isEqualTo(1);
    }

    @Test
    void aPoolsEventsGoWithItsDecisionToTheProvisioner() {
        TestOutputTopic<String, String> recorded = driver.output(Topics.NODEPOOL_EVENT_RECORDED);
        setSize(1);

        demand(POOL, 2);

        CapacityChecked partial = Json.read(capacity.readValue(), CapacityChecked.class);
        assertThat(partial.grants()).hasSize(1);
        assertThat(partial.events())
                .extracting(e -> e.reason())
                .containsExactly("CWNodeRequestQueued", "CWInsufficientCapacity");
        assertThat(recorded.isEmpty()).as("no event record of its own").isTrue();
    }

    @Test
    void aReclaimOfMoreSpotNodesThanOneRecordNamesGoesOutInBoundedRecordsOfTheSameReclaim() {
        TestOutputTopic<String, String> reclaims = driver.output(Topics.SPOT_RECLAIM_REQUESTED);
        int nodes = 2 * Limits.MAX_NODES_PER_RECLAIM + 200;
        setSize(nodes);
        PoolRef spot = new PoolRef("demo", "cheap", "uid-3", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");
        demand(spot, nodes);

        fleet.pipeInput(
                LEDGER,
                Json.string(new FleetChangeRequested(
                        "reclaim-1",
                        "US-EAST-04A",
                        "gd-8xa100-i128",
                        FleetChangeRequested.Operation.RECLAIM_SPOT,
                        nodes,
                        null,
                        NOW)));

        List<TestRecord<String, String>> out = reclaims.readRecordsToList();
        assertThat(out).extracting(TestRecord::key).containsOnly("demo/cheap");
        List<SpotReclaimRequested> records = out.stream()
                .map(r -> Json.read(r.value(), SpotReclaimRequested.class))
                .toList();
        assertThat(records)
                .extracting(r -> r.nodes().size())
                .containsExactly(Limits.MAX_NODES_PER_RECLAIM, Limits.MAX_NODES_PER_RECLAIM, 200);
        assertThat(records)
                .extracting(SpotReclaimRequested::reclaimId)
                .containsOnly(records.get(0).reclaimId());
        assertThat(records.stream().flatMap(r -> r.nodes().stream()).distinct().count())
                .isEqualTo(nodes);
    }

    @Test
    void releasesOnNodeRemovedAndIgnoresOtherNodeFacts() {
        setSize(1);
        demand(POOL, 1);
        demand(POOL, 0);
        capacity.readRecordsToList();
        Grant grant = new Grant("us-east-04a-gd-8xa100-i128-0001", 1);
        Node node =
                new Node("v1", "Node", new Node.Meta("us-east-04a-gd-8xa100-i128-0001", NOW, null, null), null, null);

        nodes.pipeInput("demo/train", Json.string(new NodeFact.NodeAssigned(POOL, node, grant, NOW)));
        assertThat(capacity.readRecordsToList()).isEmpty();
        nodes.pipeInput("demo/train", Json.string(new NodeFact.NodeRemoved(POOL, node, grant, "ScaleDown", NOW)));

        CapacityChecked released = Json.read(capacity.readValue(), CapacityChecked.class);
        assertThat(released.grants()).isEmpty();
        assertThat(released.reason()).isNull();
    }

    @Test
    void aReleaseWritesTheLedgersHeadAndTheGrantsOwnRecordToTheChangelog() {
        TestOutputTopic<String, String> changelog = driver.output("capacity-test-ledgers-changelog");
        setSize(3);
        demand(POOL, 3);
        demand(POOL, 2);
        capacity.readRecordsToList();
        changelog.readRecordsToList();
        Grant grant = new Grant("us-east-04a-gd-8xa100-i128-0003", 3);

        Node node = new Node("v1", "Node", new Node.Meta(grant.machine(), NOW, null, null), null, null);

        nodes.pipeInput("demo/train", Json.string(new NodeFact.NodeRemoved(POOL, node, grant, "ScaleDown", NOW)));

        assertThat(changelog.readKeyValuesToList())
                .extracting(kv -> kv.key + "=" + (kv.value == null ? null : "…"))
                .containsExactlyInAnyOrder(LEDGER + "=…", LEDGER + "/p/demo/train/g/3=null");
        assertThat(Json.read(capacity.readValue(), CapacityChecked.class).grants())
                .hasSize(2)
                .doesNotContain(grant);
        assertThat(capacity.isEmpty()).isTrue();
    }

    @Test
    void neitherWritesTheLedgerNorPublishesForADecisionThatChangesNothing() {
        setSize(1);
        demand(POOL, 1);
        capacity.readRecordsToList();
        KeyValueStore<String, LedgerRecord> ledgers = driver.store(StoreNames.LEDGERS);
        Map<String, LedgerRecord> stored = records(ledgers);
        assertThat(stored).containsKeys("US-EAST-04A/gd-8xa100-i128", "US-EAST-04A/gd-8xa100-i128/p/demo/train");

        demand(POOL, 1);

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
        demands.pipeInput(LEDGER, "{not json");
        demands.pipeInput("US-WEST-04A/gd-8xa100-i128", Json.string(CapacityDemanded.of(Inputs.quota(POOL, 1, NOW))));
        fleet.pipeInput(
                "US-EAST-04A/gd-8xh200ib-i128",
                Json.string(new FleetChangeRequested(
                        "r-1", "US-EAST-04A", "gd-8xh200ib-i128", FleetChangeRequested.Operation.ADD, 1, null, NOW)));
        PoolRef nowhere = new PoolRef("demo", "h200", "uid-3", 1, "US-EAST-04A", "gd-8xh200ib-i128", "default");
        demand(nowhere, 2);
        setSize(1);
        demand(POOL, 1);

        List<TestRecord<String, String>> dead = dlq.readRecordsToList();
        assertThat(dead)
                .extracting(r -> header(r, DeadLetters.ERROR))
                .containsExactly("MalformedJson", "KeyMismatch", "InstanceTypeNotInZone", "InstanceTypeNotInZone");
        assertThat(dead.get(0).value()).isEqualTo("{not json");
        assertThat(header(dead.get(0), DeadLetters.SOURCE_TOPIC)).isEqualTo(Topics.CAPACITY_DEMANDED.name());
        assertThat(header(dead.get(0), DeadLetters.SERVICE)).isEqualTo("capacity-service");
        assertThat(Json.read(capacity.readValue(), CapacityChecked.class).grants())
                .hasSize(1);
    }

    @Test
    void deadLettersACatalogueRecordItWouldNeverHaveWrittenAndPassesItsOwn() {
        var catalogued = driver.input(Topics.INSTANCE_TYPE_CATALOGUED);
        InstanceType a100 = Catalogue.fromResource("instance-types.yaml").all().stream()
                .filter(t -> t.name().equals("gd-8xa100-i128"))
                .findFirst()
                .orElseThrow();
        catalogued.pipeInput("gd-8xa100-i128", "{not json");
        catalogued.pipeInput("gd-8xa100-i128-elsewhere", Json.string(a100));
        catalogued.pipeInput("gd-8xa100-i128", Json.string(a100));

        List<TestRecord<String, String>> dead = dlq.readRecordsToList();
        assertThat(dead).extracting(r -> header(r, DeadLetters.ERROR)).containsExactly("MalformedJson", "KeyMismatch");
        assertThat(dead)
                .extracting(r -> header(r, DeadLetters.SOURCE_TOPIC))
                .containsOnly(Topics.INSTANCE_TYPE_CATALOGUED.name());
    }

    private void setSize(int machines) {
        fleet.pipeInput(
                "US-EAST-04A/gd-8xa100-i128",
                Json.string(new FleetChangeRequested(
                        "size-" + machines,
                        "US-EAST-04A",
                        "gd-8xa100-i128",
                        FleetChangeRequested.Operation.SET_SIZE,
                        machines,
                        null,
                        NOW)));
    }

    /**
     * {@code POOL} holds the one machine, {@code next} asks for one, then {@code POOL}'s incarnation leaves its quota.
     */
    private void holdThenLeave(PoolRef next) {
        setSize(1);
        demand(POOL, 1);
        demand(next, 1);
        capacity.readRecordsToList();
        demands.pipeInput(LEDGER, Json.string(CapacityDemanded.gone("demo/train", POOL.uid())));
    }

    /** The quota-service's decision for {@code pool}, as it writes it to the pool's ledger. */
    private void demand(PoolRef pool, int admitted) {
        demands.pipeInput(
                pool.zone() + "/" + pool.instanceType(),
                Json.string(CapacityDemanded.of(Inputs.quota(pool, admitted, NOW))));
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
