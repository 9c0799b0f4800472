package com.coreweave.nodepool.schema.resource;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A pool's pending demand survives the JSON every service reads: the summary, the status, the spec's new fields. */
class PendingDemandJsonTest {

    @Test
    void theStatusAndTheSummaryKeepThePendingDemandAndTheSpecItsWeightAndConsolidateAfter() throws Exception {
        NodePoolStatus status =
                new NodePoolStatus(1L, List.of(), 3, 0, 0, null, null, List.of(), null, new PendingDemand(3, 1));
        assertThat(Json.mapper().readValue(Json.mapper().writeValueAsBytes(status), NodePoolStatus.class))
                .isEqualTo(status);
        NodeFact summary = new NodeFact.NodePoolReconciled(
                new PoolRef("demo", "p", "u", 1, "z", "t", "default"),
                3,
                3,
                0,
                0,
                null,
                null,
                List.of(),
                false,
                false,
                false,
                null,
                Instant.parse("2026-01-01T00:00:00Z"),
                null,
                null,
                null,
                null,
                null,
                new PendingDemand(3, 1));
        assertThat(Json.mapper().readValue(Json.mapper().writeValueAsBytes(summary), NodeFact.class))
                .isEqualTo(summary);
        Disruption disruption = new Disruption(null, "2s");
        assertThat(Json.mapper().readValue(Json.mapper().writeValueAsBytes(disruption), Disruption.class))
                .isEqualTo(disruption);
    }
}
