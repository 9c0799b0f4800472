package com.coreweave.nodepool.provisioner.domain.controllers.health;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.Ledger;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.Remediation.Step;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Health remediation carried out within the pool's repair budget, one step per due reconcile. */
class RemediationsTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration GRACE = Duration.ofSeconds(30);
    static final Duration PREPARE = Duration.ofSeconds(45);
    /** A Replace alert reference 001 does not take out of service immediately: it waits for the budget whole. */
    static final String REPLACE = "NodeRepeatUCE";

    static final String REBOOT = "GPUTimeoutError";

    PoolDriver pool;
    Ledger ledger = new Ledger(12);
    int target;

    /** A registered pool of {@code spec}'s target whose repair budget is {@code maxUnhealthyPercent} of its nodes. */
    void registered(NodePoolSpec spec, int maxUnhealthyPercent) {
        pool = new PoolDriver(
                policy(BOOT).withRepair(new RepairPolicy(maxUnhealthyPercent, 3, Duration.ofMinutes(30), PREPARE)));
        target = spec.targetNodes();
        pool.spec(accepted(spec, 1));
        pool.grants(ledger.grant(pool.facts, target, 1));
        pool.tick(BOOT);
    }

    void busy(int... machines) {
        for (int n : machines) {
            pool.report(activity(n, true, (int) GRACE.toSeconds()));
        }
    }

    /** The nodes out for remediation: cordoned and draining, rebooting or being terminated. */
    List<String> underway() {
        return pool.state.nodes().values().stream()
                .filter(n -> n.remediation() != null && n.remediation().underway())
                .map(PoolNode::name)
                .toList();
    }

    Step step(int machine) {
        return pool.node(machine).remediation().step();
    }

    @Test
    void shouldRemediateNoMoreNodesAtOnceThanTheRepairBudgetAllows() {
        registered(spec(10), 30);
        busy(1, 2, 3, 4, 5);

        for (int n = 1; n <= 5; n++) {
            pool.raise(n, REPLACE);
        }

        assertThat(underway()).as("30 percent of 10 nodes").containsExactly(machine(1), machine(2), machine(3));
        assertThat(List.of(step(4), step(5))).containsOnly(Step.Waiting);
        assertThat(pool.node(4).node().spec().unschedulable()).isFalse();
        assertThat(pool.node(5).phase()).isEqualTo(Node.Phase.Registered);
    }

    @Test
    void shouldAlwaysAllowOneNodeOutForRemediationEvenWhenThePercentageRoundsToNone() {
        registered(spec(4), 20);
        busy(1, 2);

        pool.raise(1, REBOOT).raise(2, REBOOT);

        assertThat(underway()).containsExactly(machine(1));
        assertThat(step(2)).isEqualTo(Step.Waiting);
    }

    @Test
    void shouldStartTheLongestWaitingRemediationWhenTheBudgetFreesUp() {
        registered(spec(4), 20);
        busy(1, 2, 3);
        pool.raise(1, REBOOT);
        pool.raise(3, REBOOT);
        pool.tick(Duration.ofSeconds(1));
        pool.raise(2, REBOOT);
        assertThat(List.of(step(2), step(3))).containsOnly(Step.Waiting);

        pool.tick(GRACE);
        assertThat(underway()).as("node 1 reboots after its drain").containsExactly(machine(1));
        pool.tick(BOOT);

        assertThat(pool.node(1).remediation()).as("node 1 is back").isNull();
        assertThat(underway()).as("raised before node 2's alert").containsExactly(machine(3));
        assertThat(step(2)).isEqualTo(Step.Waiting);
    }

    @Test
    void shouldNotCountAUsersDeletionAgainstTheRepairBudget() {
        registered(spec(4), 20);
        busy(1, 2, 3);
        pool.raise(1, REBOOT);

        pool.deleteNode(2);
        pool.raise(3, REBOOT);

        assertThat(underway()).containsExactly(machine(1), machine(2));
        assertThat(pool.node(2).phase()).isEqualTo(Node.Phase.Draining);
        assertThat(step(3)).as("the budget of one is taken by node 1").isEqualTo(Step.Waiting);
    }

    List<String> repairBlocked() {
        return pool.messages("NodeRepairBlocked");
    }

    @Test
    void shouldStopRepairWithMoreNodesUnhealthyThanMaxUnhealthyAndResumeWhenBackUnder() {
        registered(Fixtures.withMaxUnhealthy(spec(10), "20%"), 50);
        busy(1, 2, 3);

        pool.raise(1, REPLACE).raise(2, REPLACE);
        assertThat(underway())
                .as("2 of 10 unhealthy: at 20 percent, not over it")
                .hasSize(2);

        pool.raise(3, REPLACE);
        assertThat(step(3)).as("3 of 10: repair stops").isEqualTo(Step.Waiting);
        assertThat(pool.node(3).node().spec().unschedulable())
                .as("left serving")
                .isFalse();
        String message = "Node repair blocked: 3 of 10 nodes unhealthy, more than maxUnhealthy \"20%\" (2);"
                + " 1 node(s) wait, and repair resumes when 2 or fewer are unhealthy.";
        assertThat(repairBlocked()).containsExactly(message);
        assertThat(pool.summary().disruption().blocked())
                .containsExactly(new DisruptionStatus.Blocked("Unhealthy", message));

        pool.raise(4, REBOOT);
        assertThat(repairBlocked()).as("said again when it changes").hasSize(2);
        assertThat(step(4)).isEqualTo(Step.Waiting);

        pool.resolve(4, REBOOT).resolve(3, REPLACE);
        pool.raise(3, REPLACE);
        assertThat(underway()).as("still 3 of 10").doesNotContain(machine(3));
        pool.resolve(2, REPLACE);
        assertThat(underway()).as("2 of 10 again: node 3 goes").contains(machine(3));
        assertThat(pool.summary().disruption().blocked())
                .as("nothing waits any more")
                .isNull();
    }

    @Test
    void shouldStillTakeFatalHardwareAndAUsersDeletionOutWhileRepairIsStopped() {
        registered(Fixtures.withMaxUnhealthy(spec(4), "0"), 50);
        busy(1, 2, 3);
        pool.raise(1, REBOOT);
        assertThat(step(1)).as("1 of 4 over a limit of 0").isEqualTo(Step.Waiting);

        pool.raise(2, "GPUFallenOffBus");
        pool.deleteNode(3);

        assertThat(underway()).containsExactlyInAnyOrder(machine(2), machine(3));
        assertThat(step(1)).isEqualTo(Step.Waiting);
    }

    @Test
    void shouldRepairAsBeforeWhenThePoolSetsNoMaxUnhealthy() {
        registered(spec(4), 100);

        pool.raise(1, REPLACE).raise(2, REPLACE).raise(3, REPLACE);

        assertThat(underway()).hasSize(3);
        assertThat(repairBlocked()).isEmpty();
    }

    @Test
    void shouldHoldEveryUnhealthyNodeAtOnceWhenEvictionIsDisabledForThePool() {
        registered(Fixtures.withEvictionDisabled(spec(4)), 20);

        pool.raise(1, REPLACE).raise(2, REPLACE).raise(3, REBOOT);

        assertThat(List.of(step(1), step(2), step(3))).containsOnly(Step.Held);
        assertThat(pool.state.nodes().values())
                .filteredOn(n -> n.node().spec().unschedulable())
                .hasSize(3);
        assertThat(pool.nodes(Node.Phase.Registered)).hasSize(4);
    }

    @Test
    void shouldWaitForTheDrainGraceOfABusyNodeBeforeRebootingIt() {
        registered(spec(2), 20);
        busy(1);

        pool.raise(1, REBOOT);
        pool.tick(GRACE.minusSeconds(1));
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Draining);
        assertThat(pool.lastReasons()).isEmpty();

        pool.tick(Duration.ofSeconds(1));
        assertThat(pool.lastReasons()).containsExactly("CWNodeDrainingForceDelete");
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Booting);
        assertThat(step(1)).isEqualTo(Step.Rebooting);
    }

    @Test
    void shouldRemoveANodeTakenOutOfServiceOnlyOnceItsTimeToPrepareForTerminationIsOver() {
        registered(spec(2), 20);

        pool.raise(1, REPLACE);
        assertThat(pool.lastReasons()).endsWith("CWNodeMarkedPrepareForTerminate");
        assertThat(pool.node(1).remediation().deadline()).isEqualTo(pool.now.plus(PREPARE));
        pool.tick(PREPARE.minusSeconds(1));
        assertThat(pool.state.nodes()).containsKey(machine(1));
        assertThat(step(1)).isEqualTo(Step.Terminating);

        pool.tick(Duration.ofSeconds(1));
        assertThat(pool.lastReasons())
                .containsExactly("CWNodePreparedForTerminate", "CWNodeDeleted", "CWNodePoolNodesRemoved");
        assertThat(pool.lastFacts(NodeRemoved.class))
                .singleElement()
                .satisfies(r -> assertThat(r.cause()).isEqualTo("Replaced"));
        assertThat(pool.state.nodes()).doesNotContainKey(machine(1));
    }

    @Test
    void shouldGiveTheEventsOfOneRemediationOneCauseAndTheNextRemediationAnother() {
        registered(spec(2), 20);
        busy(1);
        pool.raise(1, REBOOT).tick(GRACE).tick(BOOT);
        int first = pool.events.size();
        pool.resolve(1, REBOOT).tick(Duration.ofMinutes(1));

        pool.raise(1, REBOOT).tick(GRACE).tick(BOOT);

        List<String> before = remediationCauses(pool.events.subList(0, first));
        List<String> after = remediationCauses(pool.events.subList(first, pool.events.size()));
        assertThat(before).hasSize(6).containsOnly(before.getFirst());
        assertThat(after).hasSize(6).containsOnly(after.getFirst());
        assertThat(after.getFirst()).isNotEqualTo(before.getFirst());
    }

    /** The cause each remediation event of node 1 names in its id. */
    static List<String> remediationCauses(List<RecordedEvent> events) {
        return events.stream()
                .filter(e -> e.involvedObject().name().equals(machine(1)))
                .filter(e -> e.id().contains("/remediation-"))
                .map(e -> e.id().replaceAll("^.*/(remediation-[0-9]+)/.*$", "$1"))
                .toList();
    }

    @Test
    void shouldRefuseARepairPolicyOutsideItsBounds() {
        assertThatThrownBy(() -> new RepairPolicy(101, 3, Duration.ofMinutes(30), PREPARE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-unhealthy-percent");
        assertThatThrownBy(() -> new RepairPolicy(20, 1, Duration.ofMinutes(30), PREPARE))
                .hasMessageContaining("flap-threshold");
        assertThatThrownBy(() -> new RepairPolicy(20, 3, Duration.ZERO, PREPARE))
                .hasMessageContaining("durations");
    }
}
