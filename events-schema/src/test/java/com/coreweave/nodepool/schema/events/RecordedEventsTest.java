package com.coreweave.nodepool.schema.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.CwEvent;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RecordedEventsTest {

    static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

    static RecordedEvent queued(String pool) {
        return RecordedEvent.ofPool(
                new PoolRef("demo", pool, "uid-" + pool, 1, "US-EAST-04A", "gd-8xa100-i128", "default"),
                CwEvent.CWNodeRequestQueued,
                "queued",
                "r-1",
                "capacity-service",
                T0);
    }

    @Test
    void aLedgerDecisionAboutSeveralPoolsIsOneRecordPerPoolInTheOrderRecorded() {
        RecordedEvent a1 = queued("a");
        RecordedEvent b1 = queued("b");
        RecordedEvent a2 = RecordedEvent.ofPool(
                new PoolRef("demo", "a", "uid-a", 1, "US-EAST-04A", "gd-8xa100-i128", "default"),
                CwEvent.CWInsufficientCapacity,
                "short",
                "r-1",
                "capacity-service",
                T0);

        var records = RecordedEvents.byPool(List.of(a1, b1, a2));

        assertThat(records).containsOnlyKeys("demo/a", "demo/b");
        assertThat(records.keySet()).containsExactly("demo/a", "demo/b");
        assertThat(records.get("demo/a")).containsExactly(a1, a2);
        assertThat(records.get("demo/b")).containsExactly(b1);
    }

    @Test
    void theEventsOfOneChangeOfABigPoolGoOutInBoundedRecordsInOrder() {
        PoolRef pool = new PoolRef("demo", "big", "uid-big", 1, "US-EAST-04A", "gd-8xa100-i128", "default");
        List<RecordedEvent> assigned = IntStream.range(0, 2 * Limits.MAX_EVENTS_PER_RECORD + 1)
                .mapToObj(i -> RecordedEvent.ofNode(
                        pool, "node-" + i, CwEvent.CWNodeAssigned, "assigned", "g-" + i, "provisioner-service", T0))
                .toList();

        List<RecordedEvents> records = RecordedEvents.chunked(assigned);

        assertThat(records).hasSize(3);
        assertThat(records)
                .allSatisfy(r -> assertThat(r.events()).hasSizeLessThanOrEqualTo(Limits.MAX_EVENTS_PER_RECORD));
        assertThat(records.stream().flatMap(r -> r.events().stream()).toList()).isEqualTo(assigned);
        assertThat(RecordedEvents.chunked(List.of())).isEmpty();
    }

    @Test
    void aMessageLongerThanTheLimitIsCutSoNoEventGrowsWithWhatATenantWrote() {
        String huge = "x".repeat(10 * Limits.MAX_EVENT_MESSAGE_CHARS);

        RecordedEvent event = RecordedEvent.ofPool(
                new PoolRef("demo", "a", "uid-a", 1, "US-EAST-04A", "gd-8xa100-i128", "default"),
                CwEvent.CWNodePoolNodesRequestFailed,
                huge,
                "r-1",
                "api",
                T0);

        assertThat(event.message()).hasSize(Limits.MAX_EVENT_MESSAGE_CHARS).endsWith("…");
        assertThat(RecordedEvent.ofPool(
                                new PoolRef("demo", "a", "uid-a", 1, "US-EAST-04A", "gd-8xa100-i128", "default"),
                                CwEvent.CWNodeRequestQueued,
                                "short",
                                "r-1",
                                "api",
                                T0)
                        .message())
                .isEqualTo("short");
    }
}
