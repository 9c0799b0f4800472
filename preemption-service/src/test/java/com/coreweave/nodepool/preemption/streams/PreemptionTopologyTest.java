package com.coreweave.nodepool.preemption.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.streams.time.DueIndex;
import com.coreweave.nodepool.preemption.config.PreemptionSettings;
import com.coreweave.nodepool.preemption.domain.NodeTimeline;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.StreamsDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The topology without a broker: what reaches the dead letters, what ends a timeline, what the stores keep. */
class PreemptionTopologyTest {

    static final Instant T0 = Instant.parse("2026-06-09T14:00:00Z");
    static final PoolRef POOL = new PoolRef("demo", "spot-a", "uid-a", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");
    static final PoolRef OTHER_POOL =
            new PoolRef("demo", "spot-b", "uid-b", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");

    record Settings(
            Duration warningPeriod,
            Duration removalDeadline,
            Duration defaultGrace,
            Duration tick,
            Duration finishedRetention)
            implements PreemptionSettings {}

    StreamsDriver driver;
    TestInputTopic<String, String> reclaims;
    TestInputTopic<String, String> activity;
    TestInputTopic<String, String> nodeFacts;
    TestOutputTopic<String, String> progressed;
    TestOutputTopic<String, String> events;
    TestOutputTopic<String, String> deadLetters;

    @BeforeEach
    void start() {
        Settings settings = new Settings(
                Duration.ofSeconds(2),
                Duration.ofSeconds(7),
                Duration.ofSeconds(1),
                Duration.ofMillis(100),
                Duration.ofMinutes(1));
        driver = StreamsDriver.start(
                "preemption-topology-test", T0, clock -> PreemptionTopology.build(settings, 1, clock));
        reclaims = driver.input(Topics.SPOT_RECLAIM_REQUESTED);
        activity = driver.input(Topics.NODE_ACTIVITY_REPORTED);
        nodeFacts = driver.input(Topics.NODEPOOL_NODES_CHANGED);
        progressed = driver.output(Topics.SPOT_PREEMPTION_PROGRESSED);
        events = driver.output(Topics.NODEPOOL_EVENT_RECORDED);
        deadLetters = driver.output("preemption-service-dlq");
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    /** In steps of the service's tick, so that every tick's punctuation runs. */
    void passTime(Duration duration) {
        driver.elapse(duration, Duration.ofMillis(100));
    }

    static String reclaim(String id, PoolRef pool, String... nodes) {
        return Json.string(new SpotReclaimRequested(id, pool, List.of(nodes), "reserved demand waits", T0));
    }

    static Node node(String name) {
        return Node.of(
                new Node.Meta(name, T0, Map.of(), Map.of()),
                new Node.Spec(null, false, List.of()),
                new Node.Status(Node.Phase.Registered, null, 1, T0, List.of()));
    }

    /** "node:Fact" for every fact published so far. */
    List<String> steps() {
        List<String> steps = new ArrayList<>();
        for (KeyValue<String, String> kv : progressed.readKeyValuesToList()) {
            PreemptionFact fact = Json.read(kv.value, PreemptionFact.class);
            steps.add(fact.node() + ":" + fact.getClass().getSimpleName());
        }
        return steps;
    }

    @Test
    void unreadableOrForeignRecordsGoToTheDeadLetterTopicAndTheNextGoodOneIsProcessed() {
        PoolRef reserved = new PoolRef("demo", "reserved", "uid-r", 1, "US-EAST-04A", "gd-8xa100-i128", "default");
        reclaims.pipeInput("demo/spot-a", "{not json");
        reclaims.pipeInput("demo/reserved", reclaim("r-1", reserved, "n-1"));
        reclaims.pipeInput("demo/elsewhere", reclaim("r-2", POOL, "n-1"));
        reclaims.pipeInput("demo/spot-a", reclaim("r-3", POOL));
        activity.pipeInput(
                "demo/spot-a", Json.string(new NodeActivityReported("demo", "spot-a", "Not_A_Node", true, null, T0)));
        nodeFacts.pipeInput("demo/spot-a", "{\"fact\":\"NodeRemoved\"}");
        reclaims.pipeInput("demo/spot-a", reclaim("r-4", POOL, "n-1"));

        List<TestRecord<String, String>> dead = deadLetters.readRecordsToList();
        assertThat(dead)
                .extracting(r -> header(r, DeadLetters.ERROR))
                .containsExactly(
                        "MalformedJson",
                        "NotSpotPool",
                        "KeyMismatch",
                        "InvalidRecord",
                        "InvalidRecord",
                        "InvalidRecord");
        assertThat(dead.getFirst().value()).isEqualTo("{not json");
        assertThat(dead.get(1).key()).isEqualTo("demo/reserved");
        assertThat(dead).extracting(r -> header(r, DeadLetters.SERVICE)).containsOnly("preemption-service");
        assertThat(dead)
                .extracting(r -> header(r, DeadLetters.SOURCE_TOPIC))
                .containsExactly(
                        "spot-reclaim-requested",
                        "spot-reclaim-requested",
                        "spot-reclaim-requested",
                        "spot-reclaim-requested",
                        "node-activity-reported",
                        "nodepool-nodes-changed");
        assertThat(header(dead.get(1), DeadLetters.REASON)).contains("only nodes of spot pools are preempted");
        assertThat(steps()).containsExactly("n-1:PreemptionPending");
    }

    @Test
    void eachRecordOfAReclaimSplitInSeveralStartsTheTimelinesOfTheNodesItNamesAndARedeliveryNone() {
        // As the capacity-service splits a reclaim of many nodes: the same reclaim, each record naming some of them.
        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-1", "n-2"));
        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-3"));
        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-1", "n-2"));

        assertThat(steps()).containsExactly("n-1:PreemptionPending", "n-2:PreemptionPending", "n-3:PreemptionPending");
        assertThat(List.of("n-1", "n-2", "n-3"))
                .allSatisfy(node -> assertThat(
                                timelines().get("demo/spot-a|" + node).reclaimId())
                        .isEqualTo("r-1"));
    }

    @Test
    void aNodeRemovedForAnotherReasonEndsItsTimelineSilently() {
        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-1", "n-2"));
        passTime(Duration.ofSeconds(1));
        nodeFacts.pipeInput(
                "demo/spot-a",
                Json.string(
                        new NodeFact.NodeRemoved(POOL, node("n-1"), new Grant("n-1", 1), "ScaleDown", driver.now())));
        PoolRef olderIncarnation = new PoolRef("demo", "spot-a", "uid-old", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");
        nodeFacts.pipeInput(
                "demo/spot-a",
                Json.string(new NodeFact.NodeRemoved(
                        olderIncarnation, node("n-2"), new Grant("n-2", 7), "PoolDeleted", driver.now())));

        passTime(Duration.ofSeconds(8));

        assertThat(steps())
                .containsExactly(
                        "n-1:PreemptionPending",
                        "n-2:PreemptionPending",
                        "n-2:PreemptionInProgress",
                        "n-2:NodePreempted");
        assertThat(events.readValuesToList())
                .flatExtracting(v -> Json.read(v, RecordedEvents.class).events())
                .extracting(RecordedEvent::id)
                .filteredOn(id -> id.contains("/n-1/"))
                .containsExactly("preemption-service/r-1/n-1/PreemptionPending");
        assertThat(timelines().get("demo/spot-a|n-1").phase()).isEqualTo(NodeTimeline.Phase.Cancelled);
    }

    @Test
    void theNodesOfADeletedPoolLeaveTheirTimelinesAndOtherPoolsGoOn() {
        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-1", "n-2"));
        reclaims.pipeInput("demo/spot-b", reclaim("r-2", OTHER_POOL, "n-3"));
        activity.pipeInput("demo/spot-a", Json.string(new NodeActivityReported("demo", "spot-a", "n-1", true, 30, T0)));
        passTime(Duration.ofMillis(2500));

        nodeFacts.pipeInput(
                "demo/spot-a",
                Json.string(new NodeFact.NodePoolReconciled(
                        POOL, 0, 0, 0, 0, null, null, null, true, true, false, null, driver.now())));
        passTime(Duration.ofSeconds(8));

        // Both nodes of spot-a were draining (SIGKILL due at T+3s) when the pool's nodes were gone at T+2.5s.
        assertThat(steps())
                .containsExactly(
                        "n-1:PreemptionPending",
                        "n-2:PreemptionPending",
                        "n-3:PreemptionPending",
                        "n-1:PreemptionInProgress",
                        "n-2:PreemptionInProgress",
                        "n-3:PreemptionInProgress",
                        "n-3:NodePreempted");
        assertThat(timelines().get("demo/spot-a|n-1").phase()).isEqualTo(NodeTimeline.Phase.Cancelled);
        assertThat(timelines().get("demo/spot-a|n-2").phase()).isEqualTo(NodeTimeline.Phase.Cancelled);
        assertThat(driver.<String, Object>store(StoreNames.ACTIVITY).get("demo/spot-a|n-1"))
                .isNull();
    }

    @Test
    void anIdleReportDuringTheDrainRemovesTheNodeWithoutWaitingForATick() {
        activity.pipeInput("demo/spot-a", Json.string(new NodeActivityReported("demo", "spot-a", "n-1", true, 30, T0)));
        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-1"));
        passTime(Duration.ofSeconds(3));
        assertThat(steps()).containsExactly("n-1:PreemptionPending", "n-1:PreemptionInProgress");

        activity.pipeInput(
                "demo/spot-a",
                Json.string(new NodeActivityReported("demo", "spot-a", "n-1", false, null, driver.now())));

        List<PreemptionFact> facts = progressed.readValuesToList().stream()
                .map(v -> Json.read(v, PreemptionFact.class))
                .toList();
        assertThat(facts)
                .singleElement()
                .isEqualTo(new PreemptionFact.NodePreempted("r-1", POOL, "n-1", T0, T0.plusSeconds(3), "Drained"));
    }

    @Test
    void eachTimelineHasOneDueEntryAtItsNextStepAndIsPrunedWithItAfterTheRetention() {
        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-1"));
        assertThat(dueKeys()).containsExactly(DueIndex.key(T0.plusSeconds(2), "demo/spot-a|n-1"));

        passTime(Duration.ofSeconds(2));
        // Drain began at T+2s; SIGKILL after the 1 s default grace comes before the T+7s deadline.
        assertThat(dueKeys()).containsExactly(DueIndex.key(T0.plusSeconds(3), "demo/spot-a|n-1"));

        passTime(Duration.ofSeconds(1));
        assertThat(steps()).containsExactly("n-1:PreemptionPending", "n-1:PreemptionInProgress", "n-1:NodePreempted");
        assertThat(timelines().get("demo/spot-a|n-1").phase()).isEqualTo(NodeTimeline.Phase.Removed);
        assertThat(dueKeys()).containsExactly(DueIndex.key(T0.plusSeconds(63), "demo/spot-a|n-1"));

        reclaims.pipeInput("demo/spot-a", reclaim("r-1", POOL, "n-1"));
        passTime(Duration.ofSeconds(60));

        assertThat(steps())
                .as("the repeated reclaim of a finished timeline changes nothing")
                .isEmpty();
        assertThat(timelines().get("demo/spot-a|n-1")).isNull();
        assertThat(dueKeys()).isEmpty();
    }

    KeyValueStore<String, NodeTimeline> timelines() {
        return driver.store(StoreNames.TIMELINES);
    }

    List<String> dueKeys() {
        KeyValueStore<String, String> due = driver.store(StoreNames.DUE);
        List<String> keys = new ArrayList<>();
        try (var it = due.all()) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        return keys;
    }

    static String header(TestRecord<String, String> record, String name) {
        Map<String, String> headers = new HashMap<>();
        StreamSupport.stream(record.headers().spliterator(), false)
                .forEach((Header h) -> headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8)));
        return headers.get(name);
    }
}
