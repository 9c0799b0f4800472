package com.coreweave.nodepool.preemption.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PreemptionWarningsTest {

    static final PoolRef POOL = new PoolRef("demo", "spot-pool", "uid-1", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");
    static final Instant T0 = Instant.parse("2026-06-09T14:00:00Z");

    @Test
    void eachPhaseIsAWarningOnTheNodeWithTheReferencesReasonAndAnIdOfReclaimNodeAndPhase() {
        List<RecordedEvent> events = List.of(
                        new PreemptionFact.PreemptionPending(
                                "r-1", POOL, "n-1", T0, T0.plusSeconds(120), T0.plusSeconds(420)),
                        new PreemptionFact.PreemptionInProgress(
                                "r-1", POOL, "n-1", T0.plusSeconds(120), 30, T0.plusSeconds(420)),
                        new PreemptionFact.NodePreempted("r-1", POOL, "n-1", T0, T0.plusSeconds(150), "Drained"))
                .stream()
                .map(f -> PreemptionWarnings.of(f, "preemption-service"))
                .toList();

        assertThat(events)
                .extracting(RecordedEvent::reason)
                .containsExactly("Preemption pending", "Preemption in progress", "Deleted for preemption");
        assertThat(events).extracting(RecordedEvent::type).containsOnly("Warning");
        assertThat(events).extracting(RecordedEvent::involvedObject).containsOnly(ObjectReference.node("n-1"));
        assertThat(events)
                .extracting(RecordedEvent::id)
                .containsExactly(
                        "preemption-service/r-1/n-1/PreemptionPending",
                        "preemption-service/r-1/n-1/PreemptionInProgress",
                        "preemption-service/r-1/n-1/DeletedForPreemption");
        assertThat(events).extracting(RecordedEvent::at).containsExactly(T0, T0.plusSeconds(120), T0.plusSeconds(150));
        assertThat(events.get(0).message()).contains("qos.coreweave.cloud/pending-preemption=true");
        assertThat(events.get(1).message())
                .contains("qos.coreweave.cloud/evicted-at=" + T0.plusSeconds(120))
                .contains("30s before SIGKILL");
    }
}
