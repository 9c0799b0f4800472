package com.coreweave.nodepool.provisioner.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.kit.streams.time.DueIndex;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.StreamsDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The wiring without a broker: inputs reach the processor, durable timers fire on the wall clock, bad records go to
 * their dead-letter topics.
 */
class ProvisionerTopologyTest {

    static final Duration BOOT = Duration.ofSeconds(5);
    static final String KEY = "demo/train";
    static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    StreamsDriver driver;
    TestInputTopic<String, byte[]> accepted;
    TestInputTopic<String, byte[]> capacity;
    TestInputTopic<String, byte[]> activity;
    TestOutputTopic<String, String> nodes;

    @BeforeEach
    void start() {
        var policy = new ProvisioningPolicy(
                BOOT,
                0.0,
                0,
                Set.of(),
                3,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
        driver = StreamsDriver.start(
                "provisioner-topology-test",
                T0,
                clock -> ProvisionerTopology.build(policy, Duration.ofMillis(500), 1, clock));
        accepted = driver.bytesInput(Topics.NODEPOOL_ACCEPTED);
        capacity = driver.bytesInput(Topics.CAPACITY_CHECKED);
        activity = driver.bytesInput(Topics.NODE_ACTIVITY_REPORTED);
        nodes = driver.output(Topics.NODEPOOL_NODES_CHANGED);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    void elapse(Duration duration) {
        driver.elapse(duration);
    }

    static byte[] json(Object value) {
        return Json.bytes(value);
    }

    static NodePoolAccepted pool(int target) {
        return pool("train", "uid-1", target);
    }

    static NodePoolAccepted pool(String name, String uid, int target) {
        var spec = new NodePoolSpec(
                "default",
                "gd-8xa100-i128",
                target,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                false,
                new Lifecycle(Lifecycle.IDLE_ONLY, false),
                null,
                "US-EAST-04A");
        return new NodePoolAccepted(
                "demo",
                NodePool.of(new ObjectMeta(name, uid, 1L, "1", T0, null, null, null), spec, null),
                new Validation("Valid", "NodePool configuration is valid."),
                T0);
    }

    static CapacityChecked grants(Grant... grants) {
        return new CapacityChecked(
                new PoolRef("demo", "train", "uid-1", 1, "US-EAST-04A", "gd-8xa100-i128", "default"),
                "Sufficient",
                grants.length,
                List.of(grants),
                0,
                null,
                null,
                "",
                T0);
    }

    List<NodeFact> facts() {
        return nodes.readValuesToList().stream()
                .map(v -> Json.read(v, NodeFact.class))
                .toList();
    }

    static String header(TestRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    void aGrantBecomesANodeThatRegistersWhenItsDurableBootTimerFires() {
        accepted.pipeInput(KEY, json(pool(1)));
        capacity.pipeInput(KEY, json(grants(new Grant("m-1", 11))));
        assertThat(facts())
                .as("a new pool has nothing to report before capacity decided for it")
                .hasExactlyElementsOfTypes(NodeFact.NodeAssigned.class, NodeFact.NodePoolReconciled.class);
        KeyValueStore<String, String> timers = driver.store(StoreNames.TIMERS);
        assertThat(timers.get(DueIndex.key(T0.plus(BOOT), KEY))).isEqualTo(KEY);

        elapse(BOOT.minusSeconds(1));
        assertThat(facts()).isEmpty();
        elapse(Duration.ofSeconds(1));

        assertThat(facts()).hasExactlyElementsOfTypes(NodeFact.NodeRegistered.class, NodeFact.NodePoolReconciled.class);
        assertThat(timers.approximateNumEntries()).isZero();
        KeyValueStore<String, PoolMember> members = driver.store(StoreNames.POOL_MEMBERS);
        assertThat(members.get(KEY + "/n/m-1").node().phase()).isEqualTo(Node.Phase.Registered);
        TestOutputTopic<String, String> events = driver.output(Topics.NODEPOOL_EVENT_RECORDED);
        assertThat(events.readValuesToList())
                .anyMatch(e -> e.contains("\"CWNodeRegistered\""))
                .anyMatch(e -> e.contains("\"CWNodePoolScaledUp\""));
    }

    @Test
    void aTombstoneOnTheAcceptedPoolForgetsItAndItsTimer() {
        accepted.pipeInput(KEY, json(pool(1)));
        capacity.pipeInput(KEY, json(grants(new Grant("m-1", 11))));

        accepted.pipeInput(KEY, (byte[]) null);

        assertThat(driver.<String, PoolState>store(StoreNames.POOLS).get(KEY)).isNull();
        assertThat(driver.<String, PoolMember>store(StoreNames.POOL_MEMBERS).approximateNumEntries())
                .as("its nodes and grants are forgotten with it")
                .isZero();
        assertThat(driver.<String, String>store(StoreNames.TIMERS).approximateNumEntries())
                .isZero();
    }

    @Test
    void badActivityReportsGoToTheirDeadLetterTopicAndTheNextGoodOneIsUsed() {
        accepted.pipeInput(KEY, json(pool(1)));
        capacity.pipeInput(KEY, json(grants(new Grant("m-1", 11))));
        elapse(BOOT);
        nodes.readValuesToList();

        activity.pipeInput(KEY, "{garbage".getBytes(StandardCharsets.UTF_8));
        activity.pipeInput(
                KEY,
                "{\"org\":\"demo\",\"pool\":\"train\",\"node\":\"m-1\",\"active\":true}"
                        .getBytes(StandardCharsets.UTF_8));

        var dead = driver.output(Topics.NODE_ACTIVITY_REPORTED_DLQ).readRecordsToList();
        assertThat(dead).singleElement().satisfies(record -> {
            assertThat(record.key()).isEqualTo(KEY);
            assertThat(record.value()).isEqualTo("{garbage");
            assertThat(header(record, DeadLetters.ERROR)).isEqualTo("MalformedJson");
            assertThat(header(record, DeadLetters.SOURCE_TOPIC)).isEqualTo(Topics.NODE_ACTIVITY_REPORTED.name());
            assertThat(header(record, DeadLetters.SERVICE)).isEqualTo(ProvisionerTopology.SERVICE);
            assertThat(header(record, DeadLetters.REASON)).isNotBlank();
        });
        assertThat(facts())
                .filteredOn(NodeFact.NodeUpdated.class::isInstance)
                .singleElement()
                .satisfies(f ->
                        assertThat(((NodeFact.NodeUpdated) f).node().isActive()).isTrue());
    }

    @Test
    void anUnreadableInternalRecordGoesToTheServiceDeadLetterTopic() {
        capacity.pipeInput(KEY, "{\"grants\":\"not a list\"}".getBytes(StandardCharsets.UTF_8));
        accepted.pipeInput(KEY, json(pool(1)));

        var dead = driver.output(DeadLetters.serviceTopic(ProvisionerTopology.SERVICE))
                .readRecordsToList();
        assertThat(dead).singleElement().satisfies(record -> {
            assertThat(header(record, DeadLetters.ERROR)).isEqualTo("InvalidRecord");
            assertThat(header(record, DeadLetters.SOURCE_TOPIC)).isEqualTo(Topics.CAPACITY_CHECKED.name());
        });
        capacity.pipeInput(KEY, json(grants()));
        assertThat(facts())
                .as("the good records are processed")
                .hasExactlyElementsOfTypes(NodeFact.NodePoolReconciled.class);
    }

    @Test
    void aReleaseReachesEveryPoolOfTheTaskOnceAndAnUpgradeRequestAdoptsIt() {
        accepted.pipeInput(KEY, json(pool(1)));
        accepted.pipeInput("demo/other", json(pool("other", "uid-2", 0)));
        capacity.pipeInput(KEY, json(grants()));
        capacity.pipeInput(
                "demo/other",
                json(new CapacityChecked(
                        new PoolRef("demo", "other", "uid-2", 1, "US-EAST-04A", "gd-8xa100-i128", "default"),
                        null,
                        0,
                        List.of(),
                        0,
                        null,
                        null,
                        null,
                        T0)));
        facts();
        var release = new NodeReleasePublished("stable", "2026.12.0", List.of("ncore image 2026.12.0"), T0);

        driver.bytesInput(Topics.NODE_RELEASE_PUBLISHED).pipeInput("stable", json(release));

        List<NodeFact> afterRelease = facts();
        assertThat(afterRelease)
                .hasSize(2)
                .allSatisfy(f -> assertThat(((NodeFact.NodePoolReconciled) f)
                                .pendingNodeConfiguration()
                                .summary())
                        .contains("release train stable: 2026.12.0"));
        assertThat(driver.<String, NodeReleasePublished>store(StoreNames.RELEASES)
                        .get("stable"))
                .isEqualTo(release);
        driver.bytesInput(Topics.NODE_RELEASE_PUBLISHED).pipeInput("stable", json(release));
        assertThat(facts()).isEmpty();

        var upgrade = new NodeConfigurationRequested(
                "up-1", "demo", "train", "uid-1", NodeConfigurationRequested.Action.Upgrade, null, List.of(), T0);
        driver.bytesInput(Topics.NODEPOOL_CONFIGURATION_REQUESTED).pipeInput(KEY, json(upgrade));

        assertThat(facts()).singleElement().satisfies(f -> {
            var reconciled = (NodeFact.NodePoolReconciled) f;
            assertThat(reconciled.pendingNodeConfiguration()).isNull();
            assertThat(reconciled.nodeConfigurationRevisions()).hasSize(2);
        });
    }

    @Test
    void badConfigurationRequestsAndReleasesGoToDeadLetterTopics() {
        accepted.pipeInput(KEY, json(pool(1)));
        var requests = driver.bytesInput(Topics.NODEPOOL_CONFIGURATION_REQUESTED);

        requests.pipeInput(
                KEY,
                "{\"id\":\"r-1\",\"org\":\"demo\",\"pool\":\"train\",\"action\":\"Rollback\"}"
                        .getBytes(StandardCharsets.UTF_8));
        requests.pipeInput(
                KEY,
                "{\"id\":\"r-2\",\"org\":\"demo\",\"pool\":\"other\",\"action\":\"Upgrade\"}"
                        .getBytes(StandardCharsets.UTF_8));
        driver.bytesInput(Topics.NODE_RELEASE_PUBLISHED)
                .pipeInput(
                        "nightly", "{\"releaseTrain\":\"nightly\",\"version\":\"1\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(driver.output(Topics.NODEPOOL_CONFIGURATION_REQUESTED_DLQ).readRecordsToList())
                .extracting(r -> header(r, DeadLetters.ERROR), r -> header(r, DeadLetters.REASON))
                .containsExactly(
                        tuple("InvalidRecord", "a Rollback names the nodeProfile of the revision to return to"),
                        tuple(
                                "KeyMismatch",
                                "key 'demo/train' does not match the pool named in the value, 'demo/other'"));
        assertThat(driver.output(DeadLetters.serviceTopic(ProvisionerTopology.SERVICE))
                        .readRecordsToList())
                .singleElement()
                .satisfies(r -> assertThat(header(r, DeadLetters.ERROR)).isEqualTo("InvalidKey"));
    }

    @Test
    void alertsAndNodeDeletionsReachTheirNodeAndBadOnesGoToTheirDeadLetterTopics() {
        accepted.pipeInput(KEY, json(pool(2)));
        capacity.pipeInput(KEY, json(grants(new Grant("m-1", 11), new Grant("m-2", 12))));
        elapse(BOOT);
        facts();
        var alerts = driver.bytesInput(Topics.NODE_ALERT_RAISED);
        var deletions = driver.bytesInput(Topics.NODE_DELETION_REQUESTED);

        alerts.pipeInput(KEY, "{\"specversion\":\"1.0\"}".getBytes(StandardCharsets.UTF_8));
        alerts.pipeInput(
                KEY,
                json(CloudEvent.of(
                        "a-1",
                        "monitoring",
                        NodeAlert.RAISED,
                        KEY,
                        T0,
                        new NodeAlert("m-1", "GPUContainedECCError", null))));
        deletions.pipeInput(
                KEY,
                "{\"id\":\"d-0\",\"org\":\"demo\",\"pool\":\"other\",\"node\":\"m-2\"}"
                        .getBytes(StandardCharsets.UTF_8));
        deletions.pipeInput(KEY, json(new NodeDeletionRequested("d-1", "demo", "train", "uid-1", "m-2", T0)));

        assertThat(driver.output(Topics.NODE_ALERT_RAISED_DLQ).readRecordsToList())
                .singleElement()
                .satisfies(r -> assertThat(header(r, DeadLetters.ERROR)).isEqualTo("InvalidCloudEvent"));
        assertThat(driver.output(Topics.NODE_DELETION_REQUESTED_DLQ).readRecordsToList())
                .singleElement()
                .satisfies(r -> assertThat(header(r, DeadLetters.ERROR)).isEqualTo("KeyMismatch"));
        assertThat(facts())
                .filteredOn(NodeFact.NodeUpdated.class::isInstance)
                .extracting(f -> ((NodeFact.NodeUpdated) f).node().name(), f -> ((NodeFact.NodeUpdated) f).change())
                .containsExactly(
                        tuple("m-1", "AlertRaised"), tuple("m-2", "Draining"), tuple("m-2", "PrepareForTerminate"));
        assertThat(driver.output(Topics.NODEPOOL_EVENT_RECORDED).readValuesToList())
                .anyMatch(e -> e.contains("\"CWNodeDeletionRequestSuccess\""));

        // The node's durable timer removes it once its time to prepare for termination is over.
        elapse(RepairPolicy.DEFAULTS.prepareForTerminate());
        assertThat(facts())
                .filteredOn(NodeFact.NodeRemoved.class::isInstance)
                .extracting(f -> ((NodeFact.NodeRemoved) f).node().name(), f -> ((NodeFact.NodeRemoved) f).cause())
                .containsExactly(tuple("m-2", "Deleted"));
    }
}
