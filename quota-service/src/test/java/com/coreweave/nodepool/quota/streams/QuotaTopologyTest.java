package com.coreweave.nodepool.quota.streams;

import static com.coreweave.nodepool.quota.Pools.TYPE;
import static com.coreweave.nodepool.quota.Pools.ZONE;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.quota.Pools;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.resource.Conditions.Quota;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.StreamsDriver;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The wiring without a broker: routing by quota key and back, tombstones, dead letters. */
class QuotaTopologyTest {

    private static final String QUOTA = "demo/" + ZONE + "/" + TYPE;

    private StreamsDriver driver;
    private TestInputTopic<String, byte[]> demanded;
    private TestInputTopic<String, byte[]> limits;
    private TestOutputTopic<String, String> events;
    private TestOutputTopic<String, String> demands;
    private TestOutputTopic<String, byte[]> deadLetters;

    @BeforeEach
    void start() {
        driver = StreamsDriver.start(
                QuotaTopology.SERVICE, Instant.parse("2026-01-01T00:00:00Z"), clock -> QuotaTopology.build(3, clock));
        demanded = driver.bytesInput(Topics.QUOTA_DEMANDED);
        limits = driver.bytesInput(Topics.QUOTA_LIMIT_SET);
        events = driver.output(Topics.NODEPOOL_EVENT_RECORDED);
        demands = driver.output(Topics.CAPACITY_DEMANDED);
        deadLetters = driver.bytesOutput(DeadLetters.serviceTopic(QuotaTopology.SERVICE));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    private void limit(int maxNodes) {
        limits.pipeInput(QUOTA, Json.bytes(new QuotaLimit("demo", ZONE, TYPE, maxNodes, Instant.EPOCH)));
    }

    /** What the api-service writes with an accepted pool: its demand, under the quota it draws on. */
    private void pool(NodePoolAccepted pool) {
        QuotaDemanded demand = QuotaDemanded.of(pool);
        demanded.pipeInput(demand.quotaKey().toString(), Json.bytes(demand));
    }

    /** What it writes with the pool's tombstone. */
    private void gone(NodePoolAccepted pool) {
        QuotaDemanded gone = QuotaDemanded.gone(PoolRef.of(pool));
        demanded.pipeInput(gone.quotaKey().toString(), Json.bytes(gone));
    }

    /** The decisions told to the capacity ledgers since the last call, in order. */
    private List<CapacityDemanded> decisions() {
        return demands.readValuesToList().stream()
                .map(v -> Json.read(v, CapacityDemanded.class))
                .toList();
    }

    /** The last decision about {@code pool}; null when its last word was a departure. */
    private static QuotaChecked last(List<CapacityDemanded> decisions, String pool) {
        return decisions.stream()
                .filter(d -> d.pool().equals(pool))
                .reduce((a, b) -> b)
                .map(CapacityDemanded::quota)
                .orElseThrow(() -> new AssertionError("nothing for " + pool + " in " + decisions));
    }

    @Test
    void shouldAdmitOnlyOneOfTwoPoolsRacingForTheLastRoom() {
        limit(10);
        pool(Pools.accepted("demo", "a", "uid-a", 1, 6));
        pool(Pools.accepted("demo", "b", "uid-b", 1, 6));

        var records = decisions();

        assertThat(last(records, "demo/a").admittedNodes()).isEqualTo(6);
        assertThat(last(records, "demo/b").admittedNodes()).isZero();
        assertThat(last(records, "demo/b").reason()).isEqualTo(Quota.OVER);
        List<RecordedEvent> warnings = events.readValuesToList().stream()
                .flatMap(v -> Json.read(v, RecordedEvents.class).events().stream())
                .toList();
        assertThat(warnings).singleElement().satisfies(e -> {
            assertThat(e.reason()).isEqualTo("CWOverQuota");
            assertThat(e.pool()).isEqualTo("b");
        });
    }

    @Test
    void shouldTellTheCapacityLedgerOfEachDecisionAndDepartureUnderTheLedgersKey() {
        limit(10);
        pool(Pools.accepted("demo", "a", "uid-a", 1, 6));
        pool(Pools.accepted("demo", "b", "uid-b", 1, 6));
        gone(Pools.accepted("demo", "a", "uid-a", 1, 6));

        List<TestRecord<String, String>> told = demands.readRecordsToList();
        assertThat(told).extracting(TestRecord::key).containsOnly(ZONE + "/" + TYPE);
        assertThat(told)
                .extracting(r -> Json.read(r.value(), CapacityDemanded.class))
                .extracting(d -> d.pool() + " "
                        + (d.quota() == null ? "gone " + d.goneUid() : d.quota().admittedNodes()))
                .containsExactly("demo/a 6", "demo/b 0", "demo/a gone uid-a", "demo/b 6");
    }

    @Test
    void shouldTellOfAGonePoolAndAdmitTheOneThatWaited() {
        limit(10);
        pool(Pools.accepted("demo", "a", "uid-a", 1, 6));
        pool(Pools.accepted("demo", "b", "uid-b", 1, 6));
        decisions();

        gone(Pools.accepted("demo", "a", "uid-a", 1, 6));

        var records = decisions();
        assertThat(records)
                .filteredOn(d -> d.pool().equals("demo/a"))
                .singleElement()
                .satisfies(d -> assertThat(d.goneUid()).isEqualTo("uid-a"));
        assertThat(last(records, "demo/b").admittedNodes()).isEqualTo(6);
        assertThat(last(records, "demo/b").reason()).isEqualTo(Quota.UNDER);
    }

    @Test
    void shouldIgnoreTheDepartureOfAnIncarnationItNoLongerHolds() {
        limit(10);
        pool(Pools.accepted("demo", "a", "uid-a2", 1, 8));
        decisions();

        gone(Pools.accepted("demo", "a", "uid-a1", 1, 8));

        assertThat(decisions()).isEmpty();
    }

    @Test
    void shouldMoveAPoolReCreatedWithAnotherTypeToItsNewQuota() {
        limit(10);
        pool(Pools.accepted("demo", "a", "uid-a1", 1, 8));
        pool(Pools.accepted("demo", "c", "uid-c", 1, 4));
        decisions();

        gone(Pools.accepted("demo", "a", "uid-a1", 1, 8));
        pool(Pools.accepted("demo", "a", "uid-a2", 1, 2, ZONE, "gd-8xh100ib-i128", true, false));

        var records = decisions();
        QuotaChecked a = last(records, "demo/a");
        assertThat(a.pool().uid()).isEqualTo("uid-a2");
        assertThat(a.reason()).isEqualTo(Quota.NOT_SET);
        assertThat(last(records, "demo/c").admittedNodes())
                .as("the old incarnation left its quota")
                .isEqualTo(4);
    }

    @Test
    void shouldSendGarbageToTheDeadLetterTopicAndGoOn() {
        demanded.pipeInput(QUOTA, "{not json".getBytes(StandardCharsets.UTF_8));
        limits.pipeInput(QUOTA, "{\"maxNodes\":-4}".getBytes(StandardCharsets.UTF_8));
        limit(5);
        pool(Pools.accepted("demo", "a", "uid-a", 1, 5));

        var dead = deadLetters.readRecordsToList();
        assertThat(dead)
                .extracting(r -> new String(
                        r.headers().lastHeader(DeadLetters.SOURCE_TOPIC).value(), StandardCharsets.UTF_8))
                .containsExactlyInAnyOrder("quota-demanded", "quota-limit-set");
        assertThat(dead)
                .allSatisfy(r -> assertThat(new String(
                                r.headers().lastHeader(DeadLetters.SERVICE).value(), StandardCharsets.UTF_8))
                        .isEqualTo("quota-service"));
        assertThat(last(decisions(), "demo/a").reason()).isEqualTo(Quota.UNDER);
    }
}
