package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.NOW;
import static com.coreweave.nodepool.api.domain.Fixtures.OTHER_UID;
import static com.coreweave.nodepool.api.domain.Fixtures.UID;
import static com.coreweave.nodepool.api.domain.Fixtures.VALID;
import static com.coreweave.nodepool.api.domain.Fixtures.accepted;
import static com.coreweave.nodepool.api.domain.Fixtures.node;
import static com.coreweave.nodepool.api.domain.Fixtures.reconciled;
import static com.coreweave.nodepool.api.domain.Fixtures.ref;
import static com.coreweave.nodepool.api.domain.Fixtures.spec;
import static com.coreweave.nodepool.api.domain.Fixtures.verdicts;
import static com.coreweave.nodepool.api.domain.Fixtures.withVerdicts;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Node.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PoolViewReducerTest {

    /** The pool at generation 2 (its spec changed once). */
    private static final PoolView VIEW = PoolView.of(accepted(spec().build(), UID, 2, VALID));

    private static final PoolRef GEN_1 = ref(UID, 1);
    private static final PoolRef GEN_2 = ref(UID, 2);
    private static final PoolRef GEN_3 = ref(UID, 3);
    private static final PoolRef OLD_INCARNATION = ref(OTHER_UID, 5);
    private static final Grant GRANT = new Grant("m-1", 1);

    private static PoolView fold(PoolView view, Object... facts) {
        PoolView folded = view;
        for (Object fact : facts) {
            folded = PoolViewReducer.apply(folded, fact, NOW);
        }
        return folded;
    }

    @Nested
    class GatekeeperDecisions {

        @Test
        void quotaAndCapacityComeWithTheProvisionersSummaryOfThisIncarnation() {
            var summary = withVerdicts(
                    reconciled(GEN_2, "profile-1"), verdicts(Conditions.Quota.OVER, Conditions.Capacity.PARTIAL, 1));

            assertThat(fold(VIEW, summary).reconciled().verdicts()).isEqualTo(summary.verdicts());
        }

        @Test
        void theirOwnTopicsAreNoInputOfTheView() {
            var quota = new QuotaChecked(GEN_2, Conditions.Quota.OVER, 1, 0, 0, 0, false, "over", NOW);
            var capacity =
                    new CapacityChecked(GEN_2, Conditions.Capacity.SUFFICIENT, 1, List.of(), 0, null, null, "ok", NOW);

            assertThat(fold(VIEW, quota, capacity)).isSameAs(VIEW);
        }
    }

    @Nested
    class Reconciles {

        @Test
        void theLatestReconcileOfThisIncarnationIsKept() {
            NodeFact.NodePoolReconciled reconcile = reconciled(GEN_2, "profile-2");

            assertThat(fold(VIEW, reconciled(GEN_1, "profile-1"), reconcile).reconciled())
                    .isEqualTo(reconcile);
        }

        @Test
        void aReconcileOfAnotherIncarnationIsIgnored() {
            assertThat(fold(VIEW, reconciled(OLD_INCARNATION, "profile-1"))).isSameAs(VIEW);
        }

        @Test
        void anOlderReconcileDoesNotRollTheViewBack() {
            PoolView held = fold(VIEW, reconciled(GEN_2, "profile-2"));

            assertThat(fold(held, reconciled(GEN_1, "profile-1"))).isSameAs(held);
        }
    }

    @Nested
    class Nodes {

        private NodeFact.NodeAssigned assigned(PoolRef pool, String name) {
            return new NodeFact.NodeAssigned(pool, node(name, Phase.Booting, null), GRANT, NOW);
        }

        @Test
        void eachNodeIsKeptAsItsLatestSnapshot() {
            Node registered = node("n-1", Phase.Registered, "profile-1");

            PoolView view =
                    fold(VIEW, assigned(GEN_2, "n-1"), new NodeFact.NodeRegistered(GEN_2, registered, GRANT, NOW));

            assertThat(view.nodes()).containsOnlyKeys("n-1").containsEntry("n-1", registered);
        }

        @Test
        void everyKindOfNodeFactUpdatesTheSnapshot() {
            Node failed = node("n-1", Phase.Failed, null);
            Node cordoned = node("n-2", Phase.Draining, "profile-1");

            PoolView view = fold(
                    VIEW,
                    new NodeFact.NodeRegistrationFailed(GEN_2, failed, GRANT, "boot failed", NOW),
                    new NodeFact.NodeUpdated(GEN_2, cordoned, new Grant("m-2", 2), "cordoned", NOW));

            assertThat(view.nodes()).containsEntry("n-1", failed).containsEntry("n-2", cordoned);
        }

        @Test
        void nodeFactsOfAnOlderGenerationStillCountBecauseTheNodesAreReal() {
            assertThat(fold(VIEW, assigned(GEN_1, "n-1")).nodes()).containsOnlyKeys("n-1");
        }

        @Test
        void aRemovedNodeLeavesTheView() {
            Node gone = node("n-1", Phase.Removed, "profile-1");

            PoolView view = fold(
                    VIEW,
                    assigned(GEN_2, "n-1"),
                    assigned(GEN_2, "n-2"),
                    new NodeFact.NodeRemoved(GEN_2, gone, GRANT, "ScaleDown", NOW));

            assertThat(view.nodes()).containsOnlyKeys("n-2");
        }

        @Test
        void removingANodeNotHeldIsHarmless() {
            PoolView view = fold(
                    VIEW,
                    assigned(GEN_2, "n-1"),
                    new NodeFact.NodeRemoved(GEN_2, node("n-9", Phase.Removed, null), GRANT, "Declined", NOW));

            assertThat(view.nodes()).containsOnlyKeys("n-1");
        }

        @Test
        void nodeFactsOfAnotherIncarnationAreIgnored() {
            PoolView view = fold(VIEW, assigned(GEN_2, "n-1"));

            assertThat(fold(
                            view,
                            assigned(OLD_INCARNATION, "n-2"),
                            new NodeFact.NodeRemoved(
                                    OLD_INCARNATION, node("n-1", Phase.Removed, null), GRANT, "PoolDeleted", NOW)))
                    .isSameAs(view);
        }

        @Test
        void theViewFoldedFromIsNotChanged() {
            PoolView before = fold(VIEW, assigned(GEN_2, "n-1"));

            fold(
                    before,
                    assigned(GEN_2, "n-2"),
                    new NodeFact.NodeRemoved(GEN_2, node("n-1", Phase.Removed, null), GRANT, "ScaleDown", NOW));

            assertThat(before.nodes()).containsOnlyKeys("n-1");
        }
    }

    @Nested
    class Preemptions {

        private PreemptionFact.NodePreempted preempted(PoolRef pool, String node, Instant pendingAt) {
            return new PreemptionFact.NodePreempted(
                    "reclaim-" + node, pool, node, pendingAt, pendingAt.plus(Duration.ofMinutes(7)), "Deadline");
        }

        private PoolView foldAt(PoolView view, Object fact, Instant now) {
            return PoolViewReducer.apply(view, fact, now);
        }

        @Test
        void aPreemptedNodeIsRecordedWithItsTimeline() {
            Instant pendingAt = NOW.minus(Duration.ofMinutes(10));

            PoolView view = fold(VIEW, preempted(GEN_2, "n-1", pendingAt));

            assertThat(view.preemptions())
                    .containsExactly(new PoolView.Preemption(
                            "n-1", pendingAt, null, null, null, pendingAt.plus(Duration.ofMinutes(7)), "Deadline"));
        }

        @Test
        void aNodeBeingPreemptedShowsItsTimelineUntilItLeaves() {
            Instant pendingAt = NOW.minusSeconds(200);
            Instant drainAt = pendingAt.plusSeconds(120);
            Instant removeBy = pendingAt.plusSeconds(420);

            PoolView warned =
                    fold(VIEW, new PreemptionFact.PreemptionPending("r-1", GEN_2, "n-1", pendingAt, drainAt, removeBy));
            PoolView draining = fold(
                    warned,
                    new PreemptionFact.PreemptionInProgress("r-1", GEN_2, "n-1", drainAt.plusSeconds(1), 30, removeBy));
            PoolView gone = fold(draining, preempted(GEN_2, "n-1", pendingAt));

            assertThat(warned.preemptions())
                    .containsExactly(new PoolView.Preemption("n-1", pendingAt, drainAt, removeBy, null, null, null));
            assertThat(draining.preemptions())
                    .containsExactly(new PoolView.Preemption(
                            "n-1", pendingAt, drainAt, removeBy, drainAt.plusSeconds(1), null, null));
            assertThat(gone.preemptions())
                    .containsExactly(new PoolView.Preemption(
                            "n-1",
                            pendingAt,
                            drainAt,
                            removeBy,
                            drainAt.plusSeconds(1),
                            pendingAt.plus(Duration.ofMinutes(7)),
                            "Deadline"));
        }

        @Test
        void replayedTimelineStepsLeaveTheViewAsItWas() {
            var pending = new PreemptionFact.PreemptionPending(
                    "r-1", GEN_2, "n-1", NOW, NOW.plusSeconds(120), NOW.plusSeconds(420));
            var drain = new PreemptionFact.PreemptionInProgress(
                    "r-1", GEN_2, "n-1", NOW.plusSeconds(120), 30, NOW.plusSeconds(420));
            PoolView view = fold(VIEW, pending, drain);

            assertThat(fold(view, pending, drain)).isSameAs(view);
        }

        @Test
        void aReplayedPreemptionIsRecordedOnce() {
            PreemptionFact.NodePreempted fact = preempted(GEN_2, "n-1", NOW.minusSeconds(600));

            assertThat(fold(VIEW, fact, fact).preemptions()).hasSize(1);
        }

        @Test
        void aLaterPreemptionOfANodeOfTheSameNameIsAnotherEntry() {
            PoolView view = fold(
                    VIEW,
                    preempted(GEN_2, "n-1", NOW.minus(Duration.ofDays(1))),
                    preempted(GEN_2, "n-1", NOW.minusSeconds(600)));

            assertThat(view.preemptions()).hasSize(2);
        }

        @Test
        void preemptionsOfAnotherIncarnationAreIgnored() {
            assertThat(fold(VIEW, preempted(OLD_INCARNATION, "n-1", NOW))).isSameAs(VIEW);
        }

        @Test
        void sevenDaysOfHistoryAreKept() {
            PoolView view = foldAt(VIEW, preempted(GEN_2, "old", NOW.minus(Duration.ofDays(8))), NOW);
            view = foldAt(view, preempted(GEN_2, "recent", NOW.minus(Duration.ofDays(6))), NOW);

            view = foldAt(view, preempted(GEN_2, "new", NOW), NOW);

            assertThat(view.preemptions()).extracting(PoolView.Preemption::node).containsExactly("recent", "new");
        }

        @Test
        void anEntryOlderThanSevenDaysGoesWhenTheNextPreemptionArrives() {
            PoolView view = foldAt(VIEW, preempted(GEN_2, "n-1", NOW), NOW);

            PoolView weekLater =
                    foldAt(view, preempted(GEN_2, "n-2", NOW.plus(Duration.ofDays(8))), NOW.plus(Duration.ofDays(8)));

            assertThat(weekLater.preemptions())
                    .extracting(PoolView.Preemption::node)
                    .containsExactly("n-2");
        }
    }

    @Test
    void aFactThePoolViewDoesNotFoldLeavesItAsItWas() {
        assertThat(fold(VIEW, "not a fact")).isSameAs(VIEW);
    }
}
