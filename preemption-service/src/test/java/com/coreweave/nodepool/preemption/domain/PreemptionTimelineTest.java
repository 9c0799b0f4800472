package com.coreweave.nodepool.preemption.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.preemption.domain.NodeTimeline.Phase;
import com.coreweave.nodepool.preemption.domain.PreemptionTimeline.Step;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.PreemptionFact.NodePreempted;
import com.coreweave.nodepool.schema.events.PreemptionFact.PreemptionInProgress;
import com.coreweave.nodepool.schema.events.PreemptionFact.PreemptionPending;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PreemptionTimelineTest {

    static final Instant T0 = Instant.parse("2026-06-09T14:00:00Z");
    static final PoolRef POOL = new PoolRef("demo", "spot-pool", "uid-1", 1, "US-EAST-04A", "gd-8xa100-i128", "spot");
    static final String NODE = "us-east-04a-gd-8xa100-i128-0001";
    static final SpotReclaimRequested RECLAIM =
            new SpotReclaimRequested("reclaim-1", POOL, List.of(NODE), "reserved demand waits", T0);

    // The reference's timeline: drain at T+2 min, removal by T+7 min, 30 s between SIGTERM and SIGKILL.
    final PreemptionTimeline timeline = new PreemptionTimeline(
            Duration.ofMinutes(2), Duration.ofMinutes(7), Duration.ofSeconds(30), Duration.ofDays(1));

    static NodeActivity active(Integer graceSeconds) {
        return new NodeActivity(true, graceSeconds, T0.minusSeconds(60));
    }

    static NodeActivity idle(Instant at) {
        return new NodeActivity(false, null, at);
    }

    static Instant at(String offset) {
        return T0.plus(Duration.parse("PT" + offset));
    }

    /** Collects the facts of consecutive steps, as the service would publish them. */
    final List<PreemptionFact> published = new ArrayList<>();

    NodeTimeline run(Step step) {
        published.addAll(step.facts());
        return step.timeline();
    }

    @Test
    void aReclaimedNodeIsWarnedThenDrainedThenRemovedInThatOrder() {
        NodeActivity busy = active(null);
        NodeTimeline t = run(timeline.start(null, RECLAIM, NODE, busy, T0));
        assertThat(t.phase()).isEqualTo(Phase.Pending);
        assertThat(timeline.dueAt(t)).isEqualTo(at("2M"));

        t = run(timeline.advance(t, busy, at("1M59S")));
        assertThat(t.phase()).isEqualTo(Phase.Pending);
        t = run(timeline.advance(t, busy, at("2M")));
        assertThat(t.phase()).isEqualTo(Phase.Draining);
        assertThat(timeline.dueAt(t)).isEqualTo(at("2M30S"));
        t = run(timeline.advance(t, busy, at("2M29S")));
        t = run(timeline.advance(t, busy, at("2M30S")));

        assertThat(t.phase()).isEqualTo(Phase.Removed);
        assertThat(published)
                .containsExactly(
                        new PreemptionPending("reclaim-1", POOL, NODE, T0, at("2M"), at("7M")),
                        new PreemptionInProgress("reclaim-1", POOL, NODE, at("2M"), 30, at("7M")),
                        // SIGKILL after the 30 s grace empties the node long before the deadline.
                        new NodePreempted("reclaim-1", POOL, NODE, T0, at("2M30S"), PreemptionTimeline.DRAINED));
    }

    @Test
    void aWorkloadThatFinishesDuringTheDrainLetsTheNodeGoEarly() {
        NodeTimeline t = run(timeline.start(null, RECLAIM, NODE, active(300), T0));
        t = run(timeline.advance(t, active(300), at("2M")));
        assertThat(timeline.dueAt(t)).isEqualTo(at("7M"));

        t = run(timeline.advance(t, idle(at("3M10S")), at("3M10S")));

        assertThat(t.phase()).isEqualTo(Phase.Removed);
        assertThat(published.getLast())
                .isEqualTo(new NodePreempted("reclaim-1", POOL, NODE, T0, at("3M10S"), PreemptionTimeline.DRAINED));
    }

    @Test
    void aNodeAlreadyIdleWhenTheDrainBeginsLeavesWithTheDrain() {
        NodeTimeline t = run(timeline.start(null, RECLAIM, NODE, active(null), T0));
        NodeActivity idleSinceT1 = idle(at("1M"));
        t = run(timeline.advance(t, idleSinceT1, at("1M30S")));
        assertThat(t.phase())
                .as("workloads keep running until the drain, idle or not")
                .isEqualTo(Phase.Pending);

        t = run(timeline.advance(t, idleSinceT1, at("2M")));

        assertThat(published)
                .extracting(f -> f.getClass().getSimpleName())
                .containsExactly("PreemptionPending", "PreemptionInProgress", "NodePreempted");
        assertThat(((NodePreempted) published.getLast()).removedAt()).isEqualTo(at("2M"));
    }

    @Test
    void aWorkloadThatNeverStopsAndOutlastsTheWindowIsRemovedAtTheDeadline() {
        NodeActivity stubborn = active(600);
        NodeTimeline t = run(timeline.start(null, RECLAIM, NODE, stubborn, T0));
        t = run(timeline.advance(t, stubborn, at("2M")));
        t = run(timeline.advance(t, stubborn, at("6M59S")));
        assertThat(t.phase()).isEqualTo(Phase.Draining);

        t = run(timeline.advance(t, stubborn, at("7M")));

        assertThat(t.phase()).isEqualTo(Phase.Removed);
        assertThat(published.getLast())
                .isEqualTo(new NodePreempted("reclaim-1", POOL, NODE, T0, at("7M"), PreemptionTimeline.DEADLINE));
    }

    @Test
    void theGracePeriodIsTheWorkloadsTerminationGracePeriodElseTheDefault() {
        NodeTimeline reported = timeline.advance(
                        timeline.start(null, RECLAIM, NODE, null, T0).timeline(), active(90), at("2M"))
                .timeline();
        NodeTimeline unreported = timeline.advance(
                        timeline.start(null, RECLAIM, NODE, null, T0).timeline(), null, at("2M"))
                .timeline();

        assertThat(reported.gracePeriodSeconds()).isEqualTo(90);
        assertThat(timeline.dueAt(reported)).isEqualTo(at("3M30S"));
        assertThat(unreported.gracePeriodSeconds()).isEqualTo(30);
        assertThat(timeline.dueAt(unreported)).isEqualTo(at("2M30S"));
    }

    @Test
    void phasesThatCameDueWhileTheServiceWasDownFireInOrderAndOnlyOnce() {
        NodeTimeline pending = run(timeline.start(null, RECLAIM, NODE, active(600), T0));

        // Down from T+1 min to T+10 min: both the drain and the removal are overdue at the restart.
        NodeTimeline after = run(timeline.advance(pending, active(600), at("10M")));
        NodeTimeline again = run(timeline.advance(after, active(600), at("10M")));

        assertThat(again).isEqualTo(after);
        assertThat(published)
                .containsExactly(
                        new PreemptionPending("reclaim-1", POOL, NODE, T0, at("2M"), at("7M")),
                        new PreemptionInProgress("reclaim-1", POOL, NODE, at("10M"), 600, at("7M")),
                        new NodePreempted("reclaim-1", POOL, NODE, T0, at("10M"), PreemptionTimeline.DEADLINE));
    }

    @Test
    void aRestartAfterTheDrainTimeDrainsLateButKeepsTheOriginalRemovalTime() {
        NodeTimeline pending = run(timeline.start(null, RECLAIM, NODE, active(600), T0));

        NodeTimeline draining = run(timeline.advance(pending, active(600), at("3M")));

        assertThat(draining.phase()).isEqualTo(Phase.Draining);
        assertThat(draining.pendingAt()).isEqualTo(T0);
        assertThat(timeline.dueAt(draining)).as("not restarted from zero").isEqualTo(at("7M"));
        assertThat(published.getLast())
                .isEqualTo(new PreemptionInProgress("reclaim-1", POOL, NODE, at("3M"), 600, at("7M")));
    }

    @Test
    void aSecondReclaimOfANodeInATimelineChangesNothing() {
        NodeTimeline running = timeline.start(null, RECLAIM, NODE, null, T0).timeline();
        SpotReclaimRequested another = new SpotReclaimRequested("reclaim-2", POOL, List.of(NODE), "again", at("1M"));

        Step repeated = timeline.start(running, RECLAIM, NODE, null, at("30S"));
        Step second = timeline.start(running, another, NODE, null, at("1M"));

        assertThat(repeated).isEqualTo(new Step(running, List.of()));
        assertThat(second).isEqualTo(new Step(running, List.of()));
    }

    @Test
    void aFinishedTimelineIsNotStartedAgainByItsOwnReclaimButIsByANewOne() {
        NodeTimeline removed = timeline.advance(
                        timeline.start(null, RECLAIM, NODE, null, T0).timeline(), idle(at("1M")), at("2M"))
                .timeline();
        SpotReclaimRequested later =
                new SpotReclaimRequested("reclaim-9", POOL, List.of(NODE), "machine came back", at("1H"));

        assertThat(timeline.start(removed, RECLAIM, NODE, null, at("5M")).facts())
                .isEmpty();
        Step again = timeline.start(removed, later, NODE, null, at("1H"));
        assertThat(again.timeline().phase()).isEqualTo(Phase.Pending);
        assertThat(again.facts())
                .containsExactly(new PreemptionPending("reclaim-9", POOL, NODE, at("1H"), at("1H2M"), at("1H7M")));
    }

    @Test
    void aCancelledTimelineNeverAdvancesAndIsForgottenAfterTheRetention() {
        NodeTimeline pending = timeline.start(null, RECLAIM, NODE, null, T0).timeline();

        NodeTimeline cancelled = timeline.cancel(pending, "NodeRemoved: ScaleDown", at("1M"));

        assertThat(cancelled.phase()).isEqualTo(Phase.Cancelled);
        assertThat(timeline.advance(cancelled, null, at("10M")).facts()).isEmpty();
        assertThat(timeline.dueAt(cancelled)).isEqualTo(at("24H1M"));
        assertThat(timeline.expired(cancelled, at("24H0M59S"))).isFalse();
        assertThat(timeline.expired(cancelled, at("24H1M"))).isTrue();
        assertThat(timeline.cancel(cancelled, "again", at("2M"))).isSameAs(cancelled);
    }

    @Test
    void aRunningTimelineNeverExpires() {
        NodeTimeline pending = timeline.start(null, RECLAIM, NODE, null, T0).timeline();

        assertThat(timeline.expired(pending, at("48H"))).isFalse();
    }

    @Test
    void aRemovalDeadlineBeforeTheDrainIsAConfigurationError() {
        assertThatThrownBy(() -> new PreemptionTimeline(
                        Duration.ofMinutes(2), Duration.ofMinutes(1), Duration.ofSeconds(30), Duration.ofDays(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("preemption.removal-deadline");
    }

    @Test
    void aLateActivityReportDoesNotReplaceANewerOne() {
        NodeActivity newer = idle(at("5M"));
        NodeActivity older = new NodeActivity(true, 30, at("4M"));

        assertThat(NodeActivity.latest(newer, older)).isSameAs(newer);
        assertThat(NodeActivity.latest(older, newer)).isSameAs(newer);
        assertThat(NodeActivity.latest(null, older)).isSameAs(older);
    }
}
