package com.coreweave.nodepool.provisioner.domain.controllers.health;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.condition;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.Ledger;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.PoolInput;
import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import com.coreweave.nodepool.provisioner.domain.model.HealthMarks;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.NodeFact.NodeUpdated;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Node alerts of the catalogue, and what remediation does about them: reboot, replace, triage, hold. */
class HealthControllerTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration GRACE = Duration.ofSeconds(30);
    static final Duration PREPARE = RepairPolicy.DEFAULTS.prepareForTerminate();

    PoolDriver pool = new PoolDriver(policy(BOOT));
    Ledger ledger = new Ledger(12);
    int target;

    /** A pool of {@code spec}'s target, granted by the ledger, booted and registered. */
    void registered(NodePoolSpec spec) {
        target = spec.targetNodes();
        pool.spec(accepted(spec, 1));
        settleCapacity();
        pool.tick(BOOT);
    }

    /** The ledger sees the releases so far and grants what the pool lacks, as the capacity-service does. */
    void settleCapacity() {
        pool.grants(ledger.grant(pool.facts, target, 1));
    }

    Node node(int machine) {
        return pool.node(machine).node();
    }

    List<String> nodeEvents(int machine) {
        return pool.events.stream()
                .filter(e -> e.involvedObject().name().equals(machine(machine)))
                .map(RecordedEvent::reason)
                .toList();
    }

    static boolean tainted(Node node) {
        return node.spec().taints() != null
                && node.spec().taints().stream().anyMatch(t -> t.key().equals(Node.TAINT_UNHEALTHY));
    }

    @Test
    void anXid79OnABusyNodeCordonsTaintsDrainsRemovesAndReplacesItAndItsMachineGoesToMaintenance() {
        registered(spec(4));
        pool.report(activity(2, true, 30));

        pool.raise(2, "GPUFallenOffBus");

        Node draining = node(2);
        assertThat(condition(draining, "GPUProblem"))
                .extracting(Condition::status, Condition::reason)
                .containsExactly(Condition.TRUE, "GPUFallenOffBus");
        assertThat(draining.spec().unschedulable()).isTrue();
        assertThat(draining.spec().taints()).contains(new Taint(Node.TAINT_UNHEALTHY, "GPUFallenOffBus", "NoSchedule"));
        assertThat(draining.phase()).isEqualTo(Node.Phase.Draining);
        assertThat(condition(draining, Node.CONDITION_REMOVAL).reason()).isEqualTo("Replaced");
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeCordoned", "CWNodeTainted", "CWNodeDraining", "CWDrainNode");

        pool.tick(GRACE);
        assertThat(pool.lastReasons()).containsExactly("CWNodeDrainingForceDelete", "CWNodeMarkedPrepareForTerminate");
        pool.tick(PREPARE);
        assertThat(pool.lastReasons())
                .containsExactly("CWNodePreparedForTerminate", "CWNodeDeleted", "CWNodePoolNodesRemoved");
        assertThat(pool.lastFacts(NodeRemoved.class)).singleElement().satisfies(removed -> {
            assertThat(removed.cause()).isEqualTo("Replaced");
            assertThat(removed.outOfService()).isTrue();
        });
        assertThat(pool.summary().targetNodes())
                .as("remediation never shrinks the pool")
                .isEqualTo(4);

        settleCapacity();
        assertThat(ledger.maintenance()).containsExactly(machine(2));
        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(a -> a.node().name())
                .containsExactly(machine(5));
        pool.tick(BOOT);
        assertThat(pool.nodes(Node.Phase.Registered))
                .extracting(Node::name)
                .containsExactlyInAnyOrder(machine(1), machine(3), machine(4), machine(5));
        assertThat(nodeEvents(2))
                .containsExactly(
                        "CWConfigStaged",
                        "CWNodeRegistered",
                        "CWNodeCordoned",
                        "CWNodeTainted",
                        "CWNodeDraining",
                        "CWNodeDrainingForceDelete",
                        "CWNodeMarkedPrepareForTerminate",
                        "CWNodePreparedForTerminate");
    }

    @Test
    void aDpuRouteCountMismatchRestartsTheDpuComponentAndTheNodeServesThroughout() {
        registered(spec(2));
        pool.report(activity(1, true, 30));

        pool.raise(1, "DPURouteCountMismatch");

        assertThat(pool.lastReasons()).containsExactly("DPUComponentRestarting");
        assertThat(node(1).spec().unschedulable()).as("not cordoned").isFalse();
        assertThat(tainted(node(1))).isFalse();
        assertThat(node(1).phase()).isEqualTo(Node.Phase.Registered);
        assertThat(condition(node(1), "DPUProblem").status()).isEqualTo(Condition.TRUE);

        pool.tick(ComponentRestarts.RESTART_TIME);

        assertThat(pool.lastReasons()).containsExactly("DPUComponentRestarted");
        assertThat(condition(node(1), "DPUProblem"))
                .extracting(Condition::status, Condition::reason)
                .containsExactly(Condition.FALSE, HealthMarks.NO_ACTIVE_ALERT);
        assertThat(condition(node(1), Node.CONDITION_READY).status()).isEqualTo(Condition.TRUE);
        assertThat(pool.allReasons()).doesNotContain("CWNodeCordoned", "CWNodeDraining", "CWDrainNode");
    }

    @Test
    void aRebootAlertTakesTheNodeNotReadyAndBringsItBackUncordonedAndUntainted() {
        registered(spec(2));

        pool.raise(1, "GPUTimeoutError");
        assertThat(pool.lastReasons())
                .as("an idle node drains at once")
                .containsExactly("CWNodeCordoned", "CWNodeTainted", "CWNodeDraining", "CWDrainNode");
        Node rebooting = node(1);
        assertThat(rebooting.phase()).isEqualTo(Node.Phase.Booting);
        assertThat(condition(rebooting, Node.CONDITION_READY).status()).isEqualTo(Condition.FALSE);
        assertThat(condition(rebooting, Node.CONDITION_REMOVAL).status())
                .as("a reboot is no removal")
                .isEqualTo(Condition.FALSE);

        pool.tick(BOOT);
        assertThat(pool.lastReasons()).containsExactly("CWNodeRegistered", "CWNodeUncordoned", "CWNodeUntainted");
        Node back = node(1);
        assertThat(back.phase()).isEqualTo(Node.Phase.Registered);
        assertThat(condition(back, Node.CONDITION_READY).status()).isEqualTo(Condition.TRUE);
        assertThat(condition(back, "GPUProblem"))
                .extracting(Condition::status, Condition::reason)
                .containsExactly(Condition.FALSE, HealthMarks.NO_ACTIVE_ALERT);
        assertThat(back.spec().unschedulable()).isFalse();
        assertThat(tainted(back)).isFalse();
        assertThat(pool.allFacts(NodeRemoved.class)).isEmpty();
    }

    @Test
    void anAlertStormKeepsAtMostTwentyPercentOfThePoolInRemediationWhileTheRestWait() {
        registered(spec(10));
        for (int n = 1; n <= 5; n++) {
            pool.report(activity(n, true, 30));
        }

        for (int n = 1; n <= 5; n++) {
            pool.raise(n, "GPUTimeoutError");
        }
        assertThat(cordoned()).containsExactly(machine(1), machine(2));
        assertThat(condition(node(5), "GPUProblem").status())
                .as("waiting, but shown")
                .isEqualTo(Condition.TRUE);

        int most = 0;
        for (int step = 0;
                step < 40
                        && pool.events.stream()
                                        .filter(e -> e.reason().equals("CWNodeUntainted"))
                                        .count()
                                < 5;
                step++) {
            pool.tick(Duration.ofSeconds(5));
            most = Math.max(most, cordoned().size());
        }
        assertThat(most).isEqualTo(2);
        assertThat(pool.events)
                .filteredOn(e -> e.reason().equals("CWNodeUncordoned"))
                .extracting(e -> e.involvedObject().name())
                .containsExactly(machine(1), machine(2), machine(3), machine(4), machine(5));
        assertThat(pool.state.nodes()).hasSize(10);
    }

    List<String> cordoned() {
        return pool.state.nodes().values().stream()
                .filter(n -> n.node().spec().unschedulable())
                .map(PoolNode::name)
                .toList();
    }

    @Test
    void aRebootAlertThatFlapsTakesItsNodeOutOfServiceInsteadOfRebootingItAgain() {
        registered(spec(2));
        for (int cycle = 1; cycle <= 2; cycle++) {
            pool.raise(1, "GPUTimeoutError")
                    .tick(BOOT)
                    .resolve(1, "GPUTimeoutError")
                    .tick(Duration.ofMinutes(1));
        }
        assertThat(pool.allFacts(NodeRemoved.class)).isEmpty();

        pool.raise(1, "GPUTimeoutError");

        assertThat(condition(node(1), Node.CONDITION_REMOVAL).reason()).isEqualTo("Triaged");
        assertThat(condition(node(1), "GPUProblem").message()).contains("raised 3 times within 1800s");
        pool.tick(PREPARE);
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::cause)
                .containsExactly("Triaged");
        assertThat(pool.events)
                .filteredOn(e -> e.reason().equals("CWNodeUncordoned"))
                .hasSize(2);
    }

    @Test
    void raisesOutsideTheFlapWindowDoNotCount() {
        registered(spec(2));
        for (int cycle = 1; cycle <= 3; cycle++) {
            pool.raise(1, "GPUTimeoutError")
                    .tick(BOOT)
                    .resolve(1, "GPUTimeoutError")
                    .tick(Duration.ofMinutes(20));
        }
        assertThat(pool.allFacts(NodeRemoved.class)).isEmpty();
        assertThat(pool.events)
                .filteredOn(e -> e.reason().equals("CWNodeUncordoned"))
                .hasSize(3);
    }

    @Test
    void withUnhealthyNodeEvictionDisabledTheNodeIsCordonedAndTaintedNeverDrainedOrRemoved() {
        registered(Fixtures.withEvictionDisabled(spec(2)));

        pool.raise(1, "GPUFallenOffBus");
        assertThat(pool.lastReasons()).containsExactly("CWNodeCordoned", "CWNodeTainted");
        pool.tick(Duration.ofHours(1));
        assertThat(node(1).phase()).isEqualTo(Node.Phase.Registered);
        assertThat(node(1).spec().unschedulable()).isTrue();
        assertThat(condition(node(1), Node.CONDITION_REMOVAL).status()).isEqualTo(Condition.FALSE);
        assertThat(pool.allReasons()).doesNotContain("CWNodeDraining", "CWNodeDeleted");

        pool.resolve(1, "GPUFallenOffBus");
        assertThat(pool.lastReasons()).containsExactly("CWNodeUncordoned", "CWNodeUntainted");
        assertThat(node(1).spec().unschedulable()).isFalse();
    }

    @Test
    void aRecordOnlyAlertAndAnUnknownAlertAreShownAndNeverActedOn() {
        registered(spec(2));

        pool.raise(1, "GPUContainedECCError").raise(1, "SomethingNobodyCatalogued");

        assertThat(pool.allReasons()).doesNotContain("CWNodeCordoned");
        assertThat(node(1).spec().unschedulable()).isFalse();
        assertThat(condition(node(1), "GPUProblem").reason()).isEqualTo("GPUContainedECCError");
        assertThat(condition(node(1), AlertCatalogue.UNKNOWN_CONDITION))
                .extracting(Condition::status, Condition::reason)
                .containsExactly(Condition.TRUE, "SomethingNobodyCatalogued");
        assertThat(pool.lastFacts(NodeUpdated.class))
                .extracting(NodeUpdated::change)
                .containsExactly("AlertRaised");

        pool.resolve(1, "SomethingNobodyCatalogued");
        assertThat(condition(node(1), AlertCatalogue.UNKNOWN_CONDITION).status())
                .isEqualTo(Condition.FALSE);
        assertThat(condition(node(1), "GPUProblem").status()).isEqualTo(Condition.TRUE);
    }

    @Test
    void aRedeliveredAlertARaiseOfAnActiveOneAndAResolveOfNoneChangeNothing() {
        registered(spec(2));
        var raised = Fixtures.alert("NodeAlertRaised", 1, "GPUContainedECCError", pool.now, 99);
        pool.apply(new PoolInput.AlertReported(raised));
        PoolState before = pool.state;

        pool.apply(new PoolInput.AlertReported(raised));
        pool.raise(1, "GPUContainedECCError");
        pool.resolve(2, "GPUContainedECCError");

        assertThat(pool.state.nodes()).isEqualTo(before.nodes());
    }

    @Test
    void aStrongerAlertDuringARebootTakesTheNodeOutOfServiceOnceItIsBack() {
        registered(spec(2));
        pool.raise(1, "GPUTimeoutError");
        assertThat(node(1).phase()).isEqualTo(Node.Phase.Booting);

        pool.raise(1, "NodeGPUNVLinkDown");
        pool.tick(BOOT);

        assertThat(pool.lastReasons()).containsExactly("CWNodeRegistered", "CWNodeMarkedPrepareForTerminate");
        pool.tick(PREPARE);
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::cause)
                .containsExactly("Triaged");
    }

    @Test
    void anAlertOnABootingNodeWaitsUntilItHasRegistered() {
        target = 1;
        pool.spec(accepted(spec(1), 1));
        settleCapacity();

        pool.raise(1, "GPUTimeoutError");
        assertThat(pool.lastReasons()).isEmpty();
        pool.tick(BOOT);
        assertThat(pool.lastReasons())
                .containsSubsequence("CWNodeRegistered", "CWNodeCordoned", "CWNodeTainted", "CWNodeDraining");
    }

    @Test
    void aDeletedNodeIsDrainedPreparedRemovedAndReplacedOutsideTheRepairBudget() {
        registered(spec(4));
        pool.report(activity(1, true, 30));

        pool.deleteNode(1);
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeDeletionRequestSuccess", "CWNodeCordoned", "CWNodeDraining", "CWDrainNode");
        pool.deleteNode(2);
        assertThat(pool.lastReasons())
                .as("an idle node needs no drain")
                .containsExactly(
                        "CWNodeDeletionRequestSuccess",
                        "CWNodeCordoned",
                        "CWNodeDraining",
                        "CWDrainNode",
                        "CWNodeMarkedPrepareForTerminate");
        assertThat(tainted(node(1))).as("a deletion is no health mark").isFalse();
        pool.report(activity(1, false, null));
        pool.tick(PREPARE);
        assertThat(pool.allFacts(NodeRemoved.class))
                .extracting(r -> r.node().name(), NodeRemoved::cause, NodeRemoved::outOfService)
                .containsExactlyInAnyOrder(tuple(machine(1), "Deleted", false), tuple(machine(2), "Deleted", false));

        assertThat(pool.allReasons())
                .as("each deleted node is said removed on the pool")
                .filteredOn("CWNodePoolNodesRemoved"::equals)
                .hasSize(2);

        settleCapacity();
        pool.tick(BOOT);
        assertThat(pool.nodes(Node.Phase.Registered)).hasSize(4);
        assertThat(pool.allReasons())
                .filteredOn("CWNodeDeletionRequestSuccess"::equals)
                .hasSize(2);
    }

    @Test
    void aDeletionOfALeavingNodeOrOfAnotherIncarnationChangesNothing() {
        registered(spec(2));
        pool.deleteNode(1);
        int events = pool.events.size();

        pool.deleteNode(1);
        pool.apply(new PoolInput.DeletionRequested(new com.coreweave.nodepool.schema.events.NodeDeletionRequested(
                "old", Fixtures.ORG, Fixtures.POOL, "uid-old", machine(2), pool.now)));

        assertThat(pool.events).hasSize(events);
    }
}
