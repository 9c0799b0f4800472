package com.coreweave.nodepool.schema.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Limits;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SpotReclaimRequestedTest {

    static final PoolRef SPOT = new PoolRef("demo", "cheap", "uid-1", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");

    @Test
    void aReclaimOfManyNodesGoesOutInBoundedRecordsOfTheSameReclaimInOrder() {
        List<String> nodes = IntStream.range(0, 2 * Limits.MAX_NODES_PER_RECLAIM + 1)
                .mapToObj(i -> "node-" + i)
                .toList();
        SpotReclaimRequested reclaim = new SpotReclaimRequested(
                "r-1", SPOT, nodes, "reserved demand waits", Instant.parse("2026-11-24T10:00:00Z"));

        List<SpotReclaimRequested> records = reclaim.chunked();

        assertThat(records)
                .extracting(r -> r.nodes().size())
                .containsExactly(Limits.MAX_NODES_PER_RECLAIM, Limits.MAX_NODES_PER_RECLAIM, 1);
        assertThat(records.stream().flatMap(r -> r.nodes().stream()).toList()).isEqualTo(nodes);
        assertThat(records).allSatisfy(r -> {
            assertThat(r.reclaimId()).isEqualTo("r-1");
            assertThat(r.pool()).isEqualTo(SPOT);
            assertThat(r.reason()).isEqualTo(reclaim.reason());
            assertThat(r.requestedAt()).isEqualTo(reclaim.requestedAt());
        });
    }

    @Test
    void aSmallReclaimIsOneRecord() {
        SpotReclaimRequested reclaim = new SpotReclaimRequested(
                "r-1", SPOT, List.of("node-1", "node-2"), "operator", Instant.parse("2026-11-24T10:00:00Z"));

        assertThat(reclaim.chunked()).containsExactly(reclaim);
    }
}
