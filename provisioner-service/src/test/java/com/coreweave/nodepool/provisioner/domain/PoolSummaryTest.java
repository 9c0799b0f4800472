package com.coreweave.nodepool.provisioner.domain;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The counts and flags of the pool's NodePoolReconciled summary, and when it is sent. */
class PoolSummaryTest {

    static final Duration BOOT = Duration.ofSeconds(10);

    PoolDriver pool = new PoolDriver(policy(BOOT));

    @Test
    void shouldSendNoSummaryBeforeCapacityDecidedForThePool() {
        pool.spec(accepted(spec(2), 1));

        assertThat(pool.allFacts(NodePoolReconciled.class)).isEmpty();
        assertThat(pool.summary()).isNull();
    }

    @Test
    void shouldCountBootingNodesAsInProgressInTheSummary() {
        pool.spec(accepted(spec(3), 1));

        pool.grants(capacity(1, grant(1), grant(2), grant(3)));

        assertCounts(pool.summary(), 3, 0, 3, 0);
        pool.tick(BOOT);
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress)
                .containsExactly(3, 0);
    }

    @Test
    void shouldCountADrainingNodeAsCurrentAndAsRemoving() {
        pool.registered(Lifecycle.PREFER_IDLE, 2);
        pool.report(activity(1, true, 60)).report(activity(2, true, 60));

        pool.spec(accepted(Fixtures.withStrategy(spec(1), Lifecycle.PREFER_IDLE), 2));

        assertCounts(pool.summary(), 1, 2, 0, 1);
        pool.tick(Duration.ofSeconds(60));
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::removing)
                .containsExactly(1, 0);
    }

    @Test
    void shouldNotSendTheSameSummaryAgainWhenNothingChanged() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        NodePoolReconciled sent = pool.summary();

        pool.tick(Duration.ofMinutes(5));
        assertThat(pool.lastFacts(NodePoolReconciled.class)).isEmpty();
        assertThat(pool.summary()).isEqualTo(sent);

        pool.spec(accepted(spec(1), 2));
        assertThat(pool.lastFacts(NodePoolReconciled.class))
                .singleElement()
                .satisfies(s -> assertThat(s.targetNodes()).isEqualTo(1));
    }

    @Test
    void shouldSummarizeAPoolBeingDeletedAtOnceEvenBeforeCapacityDecided() {
        pool.spec(accepted(Fixtures.UID, spec(2), 1, true));

        assertThat(pool.summary())
                .extracting(NodePoolReconciled::deleting, NodePoolReconciled::nodesRemoved)
                .containsExactly(true, true);
    }

    @Test
    void shouldReportNodesRemovedOnlyOnceTheLastNodeOfADeletingPoolIsGone() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        pool.report(activity(2, true, 30));

        pool.spec(accepted(Fixtures.UID, spec(2), 1, true));
        assertThat(pool.summary())
                .extracting(
                        NodePoolReconciled::deleting, NodePoolReconciled::nodesRemoved, NodePoolReconciled::removing)
                .containsExactly(true, false, 1);

        pool.tick(Duration.ofSeconds(30));
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::nodesRemoved, NodePoolReconciled::currentNodes)
                .containsExactly(true, 0);
    }

    /** The summary's target, current, in-progress and removing counts, in that order. */
    private static void assertCounts(
            NodePoolReconciled summary, int target, int current, int inProgress, int removing) {
        assertThat(summary)
                .extracting(
                        NodePoolReconciled::targetNodes,
                        NodePoolReconciled::currentNodes,
                        NodePoolReconciled::inProgress,
                        NodePoolReconciled::removing)
                .containsExactly(target, current, inProgress, removing);
    }
}
