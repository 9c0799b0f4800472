package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.NOW;
import static com.coreweave.nodepool.api.domain.Fixtures.UID;
import static com.coreweave.nodepool.api.domain.Fixtures.VALID;
import static com.coreweave.nodepool.api.domain.Fixtures.accepted;
import static com.coreweave.nodepool.api.domain.Fixtures.node;
import static com.coreweave.nodepool.api.domain.Fixtures.nodes;
import static com.coreweave.nodepool.api.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.resource.Node.Phase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PreemptionHistoryTest {

    private static final PoolView POOL = PoolView.of(accepted(spec().build(), UID, 1, VALID));

    private static PoolView.Preemption inFlight(String node, int secondsAgo) {
        var pendingAt = NOW.minusSeconds(secondsAgo);
        return new PoolView.Preemption(
                node, pendingAt, pendingAt.plusSeconds(120), pendingAt.plusSeconds(420), null, null, null);
    }

    private static PoolView.Preemption finished(String node, Duration ago) {
        var removedAt = NOW.minus(ago);
        return new PoolView.Preemption(node, removedAt.minusSeconds(420), null, null, null, removedAt, "Deadline");
    }

    @Test
    void nodesBeingPreemptedAreListedWithTheirTimelinesOldestWarningFirst() {
        var view = POOL.withNodes(nodes(node("n-1", Phase.Registered, null), node("n-2", Phase.Draining, null)))
                .withPreemptions(List.of(inFlight("n-2", 10), inFlight("n-1", 200)));

        var history = PreemptionHistory.of(view, NOW);

        assertThat(history.inProgress()).containsExactly(inFlight("n-1", 200), inFlight("n-2", 10));
        assertThat(history.preempted()).isEmpty();
        assertThat(history.last7d()).isZero();
    }

    @Test
    void aTimelineWhoseNodeIsGoneIsNotShownAsRunning() {
        var view = POOL.withPreemptions(List.of(inFlight("scaled-down", 30)));

        assertThat(PreemptionHistory.of(view, NOW).inProgress()).isEmpty();
    }

    @Test
    void finishedPreemptionsOfTheLastSevenDaysAreCountedPerDay() {
        var view = POOL.withPreemptions(List.of(
                finished("old", Duration.ofDays(8)),
                finished("a", Duration.ofDays(2)),
                finished("b", Duration.ofHours(1)),
                inFlight("c", 5)));

        var history = PreemptionHistory.of(view, NOW);

        assertThat(history.preempted()).extracting(PoolView.Preemption::node).containsExactly("a", "b");
        assertThat(history.last7d()).isEqualTo(2);
        assertThat(history.last24h()).isEqualTo(1);
        assertThat(history.perDay()).containsOnlyKeys("2025-06-07", "2025-06-09");
    }
}
