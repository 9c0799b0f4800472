package com.coreweave.nodepool.provisioner.domain.controllers.scaling;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.Ledger;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.controllers.configuration.NodeProfiles;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.NodeFact.NodeUpdated;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scaling towards the desired count: grants to nodes, releases, scale-down by strategy, deletion. */
class ScalingControllerTest {

    static final Duration BOOT = Duration.ofSeconds(10);

    PoolDriver pool = new PoolDriver(policy(BOOT));

    @Test
    void grantsForAnOlderLargerDemandDoNotBecomeNodesBeyondWhatQuotaAdmitted() {
        // Quota admitted 1 (the target of 5 is over quota), but grants made for an earlier demand of 3 arrive late.
        var late = new com.coreweave.nodepool.schema.events.CapacityChecked(
                Fixtures.ref(1),
                com.coreweave.nodepool.schema.resource.Conditions.Capacity.SUFFICIENT,
                1,
                List.of(grant(1), grant(2), grant(3)),
                0,
                null,
                null,
                "",
                Fixtures.T0);
        pool.spec(accepted(spec(5), 1)).grants(late);

        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(NodeAssigned::grant)
                .containsExactly(grant(1));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::grant, NodeRemoved::cause)
                .containsExactlyInAnyOrder(tuple(grant(2), "Declined"), tuple(grant(3), "Declined"));
    }

    @Test
    void grantsBecomeBootingNodesWithThePoolsLabelsTaintsAndProfile() {
        pool.spec(accepted(spec(2), 1)).grants(capacity(1, grant(1), grant(2)));

        List<NodeAssigned> assigned = pool.lastFacts(NodeAssigned.class);
        assertThat(assigned).hasSize(2);
        Node node = assigned.get(0).node();
        assertThat(assigned.get(0).grant()).isEqualTo(grant(1));
        assertThat(node.name()).isEqualTo(machine(1));
        assertThat(node.phase()).isEqualTo(Node.Phase.Booting);
        assertThat(node.metadata().labels())
                .containsEntry("team", "research")
                .containsEntry(Node.LABEL_INSTANCE_TYPE, Fixtures.TYPE)
                .containsEntry(Node.LABEL_ZONE, "US-EAST-04A")
                .containsEntry(Node.LABEL_REGION, "US-EAST-04")
                .containsEntry(Node.LABEL_HOSTNAME, machine(1))
                .containsEntry(Node.LABEL_NODE_POOL, Fixtures.POOL)
                .containsEntry(Node.LABEL_COMPUTE_CLASS, "default");
        assertThat(node.metadata().annotations()).containsEntry("owner", "ml-platform");
        assertThat(node.spec().taints()).containsExactly(new Taint("nvidia.com/gpu", "present", "NoSchedule"));
        assertThat(node.spec().unschedulable()).isFalse();
        assertThat(node.status().nodeProfile())
                .isEqualTo(NodeProfiles.of(spec(2), NodeReleases.INITIAL))
                .matches("np-[0-9a-f]{8}");
        assertThat(node.status().bootAttempt()).isEqualTo(1);
        assertThat(Fixtures.condition(node, Node.CONDITION_ACTIVE).status()).isEqualTo(Condition.FALSE);
        assertThat(Fixtures.condition(node, Node.CONDITION_REGISTERED).reason()).isEqualTo(NodeTemplate.BOOTING);
        assertThat(Fixtures.condition(node, Node.CONDITION_REMOVAL).status()).isEqualTo(Condition.FALSE);
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeAssigned", "CWConfigStaged", "CWNodeAssigned", "CWConfigStaged");
        assertThat(pool.summary())
                .extracting(
                        NodePoolReconciled::currentNodes,
                        NodePoolReconciled::inProgress,
                        NodePoolReconciled::nodeProfile)
                .containsExactly(0, 2, node.status().nodeProfile());
    }

    @Test
    void grantsBeyondTheTargetAreReleasedAtOnce() {
        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1), grant(2)));

        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(NodeFact.AboutNode::grant)
                .containsExactly(grant(1));
        assertThat(pool.lastFacts(NodeRemoved.class)).singleElement().satisfies(removed -> {
            assertThat(removed.grant()).isEqualTo(grant(2));
            assertThat(removed.cause()).isEqualTo("Declined");
        });
        assertThat(pool.state.releasedGrants()).containsExactly(grant(2).grantId());
    }

    @Test
    void aReleasedGrantIsNeverTurnedIntoANodeAgainEvenWhileAStaleCapacityStillListsIt() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        pool.spec(accepted(spec(1), 2));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::grant)
                .containsExactly(grant(2));

        // The ledger has not seen the release yet; then the target rises again.
        pool.grants(capacity(2, grant(1), grant(2)));
        pool.spec(accepted(spec(2), 3));
        pool.grants(capacity(3, grant(1), grant(2)));
        assertThat(pool.allFacts(NodeAssigned.class))
                .extracting(NodeAssigned::grant)
                .containsExactly(grant(1), grant(2));

        // The ledger freed grant 102 and grants the machine again under a new id: that one becomes a node.
        Grant regranted = new Grant(machine(2), 500);
        pool.grants(capacity(3, grant(1), regranted));
        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(NodeAssigned::grant)
                .containsExactly(regranted);
    }

    @Test
    void releasedGrantIdsAreForgottenOnceTheLedgerNoLongerListsThem() {
        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1), grant(2)));
        assertThat(pool.state.releasedGrants()).containsExactly(grant(2).grantId());

        pool.grants(capacity(1, grant(1)));
        assertThat(pool.state.releasedGrants()).isEmpty();
    }

    @Test
    void anInvalidPoolHoldsItsGrantsWithoutBootingThem() {
        pool.spec(Fixtures.invalid(spec(1), 1)).grants(capacity(1, grant(1)));
        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.state.releasedGrants()).isEmpty();
    }

    @Test
    void idleOnlyRemovesIdleNodesAndKeepsThePoolOverTargetUntilMoreGoIdle() {
        pool.registered(Lifecycle.IDLE_ONLY, 3);
        pool.report(activity(1, true, null)).report(activity(2, true, null));

        pool.spec(accepted(spec(1), 2));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(f -> f.node().name(), NodeRemoved::cause)
                .containsExactly(tuple(machine(3), "ScaleDown"));
        assertThat(pool.lastReasons()).containsExactly("CWNodePoolRemoveNodes", "CWNodeDeleted");
        assertThat(pool.state.nodes()).containsOnlyKeys(machine(1), machine(2));
        assertThat(pool.state.nodes().values()).noneMatch(PoolNode::leaving);
        assertThat(pool.summary().currentNodes()).isEqualTo(2);

        pool.tick(Duration.ofMinutes(10));
        assertThat(pool.state.nodes()).hasSize(2);

        pool.report(activity(2, false, null));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(f -> f.node().name())
                .containsExactly(machine(2));
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeDeleted", "CWNodePoolNodesRemoved", "CWNodePoolScaledDown");
        assertThat(pool.summary().currentNodes()).isEqualTo(1);
        assertThat(pool.allReasons())
                .filteredOn("CWNodePoolRemoveNodes"::equals)
                .hasSize(1);
    }

    @Test
    void preferIdleRemovesIdleNodesFirstThenDrainsActiveOnesNewestFirst() {
        pool.registered(Lifecycle.PREFER_IDLE, 3);
        pool.report(activity(1, true, null)).report(activity(2, true, null));

        pool.spec(accepted(Fixtures.withStrategy(spec(1), Lifecycle.PREFER_IDLE), 2));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(f -> f.node().name())
                .containsExactly(machine(3));
        NodeUpdated draining = pool.lastFacts(NodeUpdated.class).get(0);
        assertThat(draining.change()).isEqualTo("Draining");
        assertThat(draining.node().name()).isEqualTo(machine(2));
        assertThat(draining.node().phase()).isEqualTo(Node.Phase.Draining);
        assertThat(draining.node().spec().unschedulable()).isTrue();
        assertThat(Fixtures.condition(draining.node(), Node.CONDITION_REMOVAL))
                .extracting(Condition::status, Condition::reason)
                .containsExactly(Condition.TRUE, "ScaleDown");
        assertThat(pool.lastReasons())
                .containsExactly(
                        "CWNodePoolRemoveNodes", "CWNodeDeleted", "CWNodeCordoned", "CWNodeDraining", "CWDrainNode");
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::removing)
                .containsExactly(2, 1);
        assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(Duration.ofSeconds(30)));

        pool.report(activity(2, false, null));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(f -> f.node().name(), NodeRemoved::cause)
                .containsExactly(tuple(machine(2), "ScaleDown"));
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeDeleted", "CWNodePoolNodesRemoved", "CWNodePoolScaledDown");
        assertThat(pool.state.nodes()).containsOnlyKeys(machine(1));
    }

    @Test
    void deletionRemovesEveryNodeDrainingActiveOnesWhateverTheStrategyThenReportsNodesRemoved() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        pool.report(activity(1, true, null));

        pool.spec(accepted(Fixtures.UID, spec(2), 1, true));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(f -> f.node().name(), NodeRemoved::cause)
                .containsExactly(tuple(machine(2), "PoolDeleted"));
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Draining);
        assertThat(pool.summary())
                .extracting(
                        NodePoolReconciled::deleting, NodePoolReconciled::nodesRemoved, NodePoolReconciled::targetNodes)
                .containsExactly(true, false, 0);

        pool.tick(Duration.ofSeconds(30));
        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.summary().nodesRemoved()).isTrue();
        assertThat(pool.allReasons())
                .containsSubsequence(
                        "CWNodePoolRemoveNodes",
                        "CWNodeDeleted",
                        "CWDrainNode",
                        "CWNodeDeleted",
                        "CWNodePoolNodesRemoved");

        // Grants the ledger still lists for the deleting pool are released, never booted.
        pool.grants(capacity(1, grant(1), grant(2), grant(3)));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::grant)
                .containsExactly(grant(3));
        assertThat(pool.state.nodes()).isEmpty();

        pool.spec(null);
        assertThat(pool.state).isNull();
    }

    @Test
    void rapidTargetChangesEndAtTheLastTargetWithNoExtraOrMissingNode() {
        Ledger ledger = new Ledger(6);
        pool.spec(accepted(spec(3), 1));
        int[] targets = {1, 5, 2, 4};
        long generation = 1;
        for (int target : targets) {
            generation++;
            pool.spec(accepted(spec(target), generation));
            // The ledger sees each target and the releases so far, a step behind.
            pool.grants(ledger.grant(pool.facts, target, generation));
        }
        for (int round = 0; round < 5; round++) {
            pool.tick(BOOT);
            pool.grants(ledger.grant(pool.facts, 4, generation));
        }

        assertThat(pool.state.nodes()).hasSize(4);
        assertThat(pool.nodes(Node.Phase.Registered)).hasSize(4);
        assertThat(pool.summary())
                .extracting(
                        NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress, NodePoolReconciled::removing)
                .containsExactly(4, 0, 0);
        // Every grant became at most one node, and the nodes that stayed hold grants the ledger still lists.
        List<Long> assignedGrants = pool.allFacts(NodeAssigned.class).stream()
                .map(f -> f.grant().grantId())
                .toList();
        assertThat(assignedGrants).doesNotHaveDuplicates();
        assertThat(pool.state.nodes().values())
                .extracting(n -> n.grant())
                .allMatch(g -> ledger.held().contains(g));
    }

    @Test
    void whenTheTargetRisesAgainADrainingNodeIsKeptRatherThanANewOneBooted() {
        pool.registered(Lifecycle.PREFER_IDLE, 2);
        pool.report(activity(1, true, null)).report(activity(2, true, null));
        pool.spec(accepted(Fixtures.withStrategy(spec(1), Lifecycle.PREFER_IDLE), 2));
        assertThat(pool.node(2).leaving()).isTrue();

        pool.spec(accepted(Fixtures.withStrategy(spec(2), Lifecycle.PREFER_IDLE), 3));
        assertThat(pool.lastFacts(NodeUpdated.class))
                .extracting(NodeUpdated::change)
                .containsExactly("Uncordoned");
        Node kept = pool.node(2).node();
        assertThat(kept.phase()).isEqualTo(Node.Phase.Registered);
        assertThat(kept.spec().unschedulable()).isFalse();
        assertThat(pool.lastReasons()).containsExactly("CWNodeUncordoned", "CWNodePoolScaledUp");
        assertThat(pool.state.wakeAt()).isNull();
    }
}
