package com.coreweave.nodepool.provisioner.domain.controllers.preemption;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.PoolInput;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The spot preemption timeline applied to a node. */
class PreemptionControllerTest {

    static final Duration BOOT = Duration.ofSeconds(10);

    PoolDriver pool = new PoolDriver(policy(BOOT));

    @Test
    void spotPreemptionCordonsLabelsDrainsAndRemovesTheNodeAndItsGrant() {
        pool.registered(Lifecycle.IDLE_ONLY, 1);
        PoolRef ref = Fixtures.ref(1);
        Instant evictedAt = Instant.parse("2026-11-22T10:02:00Z");

        pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.PreemptionPending(
                "r-1", ref, machine(1), pool.now, pool.now.plusSeconds(120), pool.now.plusSeconds(420))));
        Node pending = pool.node(1).node();
        assertThat(pending.spec().unschedulable()).isTrue();
        assertThat(pending.metadata().labels()).containsEntry(Node.LABEL_PENDING_PREEMPTION, "true");
        assertThat(Fixtures.condition(pending, Node.CONDITION_REMOVAL).reason()).isEqualTo("Preempted");
        assertThat(pool.lastReasons()).containsExactly("CWNodeCordoned");

        pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.PreemptionInProgress(
                "r-1", ref, machine(1), evictedAt, 30, pool.now.plusSeconds(420))));
        Node evicted = pool.node(1).node();
        assertThat(evicted.phase()).isEqualTo(Node.Phase.Draining);
        assertThat(evicted.metadata().labels())
                .containsEntry(Node.LABEL_EVICTED_AT, Long.toString(evictedAt.getEpochSecond()));
        assertThat(pool.lastReasons()).containsExactly("CWNodeDraining", "CWDrainNode");
        pool.tick(Duration.ofMinutes(5));
        assertThat(pool.state.nodes())
                .as("the preemption timeline, not a timer here, removes the node")
                .hasSize(1);

        pool.apply(new PoolInput.PreemptionProgressed(
                new PreemptionFact.NodePreempted("r-1", ref, machine(1), Fixtures.T0, pool.now, "Drained")));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::grant, NodeRemoved::cause)
                .containsExactly(tuple(grant(1), "Preempted"));
        assertThat(pool.lastReasons()).containsExactly("CWNodeDeleted", "CWNodePoolNodesRemoved");
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::targetNodes, NodePoolReconciled::currentNodes)
                .containsExactly(1, 0);

        // A repeated step changes nothing.
        pool.apply(new PoolInput.PreemptionProgressed(
                new PreemptionFact.NodePreempted("r-1", ref, machine(1), Fixtures.T0, pool.now, "Drained")));
        assertThat(pool.last.facts()).isEmpty();
    }

    @Test
    void eachNodeOneReclaimDrainsIsAnEventOfItsOwnOnThePool() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        PoolRef ref = Fixtures.ref(1);
        for (int n = 1; n <= 2; n++) {
            pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.PreemptionInProgress(
                    "r-2", ref, machine(n), pool.now, 30, pool.now.plusSeconds(420))));
        }

        assertThat(pool.events.stream().filter(e -> e.reason().equals("CWDrainNode")))
                .extracting(RecordedEvent::id)
                .as("two ids: the event store keeps one event per id")
                .doesNotHaveDuplicates()
                .hasSize(2);
    }
}
