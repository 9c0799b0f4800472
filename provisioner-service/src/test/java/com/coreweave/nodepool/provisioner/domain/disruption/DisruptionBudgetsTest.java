package com.coreweave.nodepool.provisioner.domain.disruption;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.withBudgets;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.Ledger;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import com.coreweave.nodepool.provisioner.domain.model.HealthMarks;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.Remediation.Step;
import com.coreweave.nodepool.schema.resource.Disruption.Budget;
import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a pool's disruption budgets let happen to its nodes, as a user watching them would see it. */
class DisruptionBudgetsTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration GRACE = Duration.ofSeconds(30);
    static final Duration PREPARE = Duration.ofSeconds(5);
    /** Triage alerts that wait for the budget whole (reference 001 does not say "immediately"). */
    static final String TRIAGE = "DCGMSRAMThresholdExceeded";

    static final String XID_79 = "GPUFallenOffBus";
    static final String REBOOT = "GPUTimeoutError";

    PoolDriver pool;
    Ledger ledger = new Ledger(12);
    int target;

    void registered(NodePoolSpec spec) {
        pool = new PoolDriver(policy(BOOT).withRepair(new RepairPolicy(20, 3, Duration.ofMinutes(30), PREPARE)));
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

    /** Nodes a workload can be scheduled on: registered, not cordoned, not leaving. */
    long serving() {
        return pool.state.nodes().values().stream()
                .filter(n ->
                        n.phase() == Node.Phase.Registered && !n.node().spec().unschedulable() && !n.leaving())
                .count();
    }

    /** A second passes; the ledger grants what the pool lacks, as the capacity-service does. */
    void second() {
        pool.tick(Duration.ofSeconds(1));
        pool.grants(ledger.grant(pool.facts, target, 1));
    }

    List<String> blocked() {
        return pool.messages("DisruptionBlocked");
    }

    @Test
    void shouldKeepFourOfFiveNodesServingWhileThreeTriageAlertsAreRemediatedOneAfterTheOther() {
        registered(spec(5));
        busy(1, 2, 3, 4, 5);

        pool.raise(1, TRIAGE).raise(2, TRIAGE).raise(3, TRIAGE);
        second();
        assertThat(pool.summary().disruption())
                .as("the pool's status.disruption while the first alert's node drains")
                .isEqualTo(new DisruptionStatus(
                        1,
                        List.of(new DisruptionStatus.Blocked(
                                "Unhealthy",
                                "2 node(s) to be drained for a node alert wait for the disruption budget: the"
                                        + " platform's default budget nodes \"20%\" (1 of 5) allows no more now, 1 out"
                                        + " of service."))));
        long fewest = serving();
        for (int s = 0; s < 300; s++) {
            second();
            fewest = Math.min(fewest, serving());
        }

        assertThat(fewest)
                .as("the default budget of 20%: one of five nodes out at a time")
                .isEqualTo(4);
        assertThat(pool.state.nodes()).doesNotContainKeys(machine(1), machine(2), machine(3));
        assertThat(serving()).isEqualTo(5);
        assertThat(pool.summary().disruption()).as("nothing out, nothing held").isNull();
        assertThat(blocked())
                .contains("2 node(s) to be drained for a node alert wait for the disruption budget: the platform's"
                        + " default budget nodes \"20%\" (1 of 5) allows no more now, 1 out of service.");
    }

    @Test
    void shouldCountARemovedNodeUntilItsReplacementIsReady() {
        registered(spec(5));
        busy(1, 2);
        pool.raise(1, TRIAGE).raise(2, TRIAGE);

        pool.tick(GRACE).tick(PREPARE);
        assertThat(pool.state.nodes()).doesNotContainKey(machine(1));
        assertThat(pool.node(2).remediation().step())
                .as("node 1 is gone but its replacement is not granted yet")
                .isEqualTo(Step.Waiting);

        pool.grants(ledger.grant(pool.facts, target, 1));
        assertThat(pool.node(2).remediation().step())
                .as("the replacement boots")
                .isEqualTo(Step.Waiting);

        pool.tick(BOOT);
        assertThat(pool.node(2).remediation().step())
                .as("the replacement is Ready")
                .isEqualTo(Step.Draining);
    }

    @Test
    void shouldDrainAnXid79NodeAtOnceWhileAnotherNodesRebootHoldsTheBudget() {
        registered(spec(5));
        busy(1, 2);
        pool.raise(1, REBOOT);

        pool.raise(2, XID_79);

        PoolNode node = pool.node(2);
        assertThat(node.node().spec().unschedulable()).isTrue();
        assertThat(HealthMarks.taint(node.node()).orElseThrow().value()).isEqualTo(XID_79);
        assertThat(node.remediation().step())
                .as("fatal hardware is involuntary: node 1's reboot does not hold it")
                .isEqualTo(Step.Draining);
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeCordoned", "CWNodeTainted", "CWNodeDraining", "CWDrainNode");
        assertThat(pool.summary().disruption().outOfService()).isEqualTo(2);
    }

    @Test
    void shouldTakeFatalHardwareOutOfServiceEvenUnderABudgetOfNoNodesAndHoldOtherRepairsMeanwhile() {
        registered(withBudgets(spec(5), new Budget("0", null, null, null, null, null)));
        busy(1, 2, 3);

        pool.raise(1, XID_79).raise(2, "GPUPRowRemapFailure").raise(3, TRIAGE);

        assertThat(pool.node(1).remediation().step()).isEqualTo(Step.Draining);
        assertThat(pool.node(2).remediation().step()).isEqualTo(Step.Draining);
        assertThat(pool.node(3).remediation().step())
                .as("a Triage alert is voluntary: the budget of 0 holds it")
                .isEqualTo(Step.Waiting);
        assertThat(pool.summary().disruption().outOfService()).isEqualTo(2);

        pool.tick(GRACE).tick(PREPARE);
        assertThat(pool.state.nodes()).doesNotContainKeys(machine(1), machine(2));
        assertThat(pool.events.stream().filter(e -> e.reason().equals("CWNodePoolNodesRemoved")))
                .as("each fatal-hardware node said removed on the pool")
                .hasSize(2);
        assertThat(pool.node(3).remediation().step()).isEqualTo(Step.Waiting);
    }

    @Test
    void shouldInterruptAThrottledNodesWorkloadWithoutItsGracePeriod() {
        registered(spec(5));
        busy(1);

        pool.raise(1, "NodeCPUHZThrottleLong");

        assertThat(pool.lastReasons())
                .as("drained and its pods deleted at once, whatever their 30s grace period")
                .containsSubsequence(
                        "CWNodeCordoned",
                        "CWNodeTainted",
                        "CWNodeDraining",
                        "CWDrainNode",
                        "CWNodeDrainingForceDelete",
                        "CWNodeMarkedPrepareForTerminate");
        assertThat(pool.node(1).remediation().step()).isEqualTo(Step.Terminating);
    }

    @Test
    void shouldHoldAScaleDownBackWhileABudgetOfNoNodesIsInForce() {
        // T0 is Sunday 10:00 UTC: a budget from 9:00 for 8h is in force.
        Budget businessHours = new Budget("0", "0 9 * * *", "8h", List.of("ScaleDown"), null, null);
        registered(withBudgets(spec(5), businessHours));

        pool.spec(accepted(withBudgets(spec(3), businessHours), 2));

        assertThat(pool.state.nodes()).hasSize(5);
        assertThat(blocked())
                .containsExactly("2 node(s) to leave for the scale-down to 3 wait for the disruption budget: budget"
                        + " nodes \"0\" from \"0 9 * * *\" for 8h allows no more now, 0 out of service.");
        assertThat(pool.state.wakeAt())
                .as("it looks again when the minute ends")
                .isEqualTo(Fixtures.T0.plusSeconds(60));

        pool.tick(Duration.ofHours(7));
        assertThat(pool.state.nodes()).as("17:00: the budget is over").hasSize(3);
    }

    @Test
    void shouldStartNoMoreDisruptionsWithinAWindowThanItAllows() {
        Budget onePerTenMinutes = new Budget("100%", null, null, List.of("Unhealthy"), 1, "10m");
        registered(withBudgets(spec(5), onePerTenMinutes));

        pool.raise(1, REBOOT).raise(2, REBOOT);
        assertThat(pool.node(2).remediation().step()).isEqualTo(Step.Waiting);
        assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(BOOT));

        pool.tick(BOOT);
        assertThat(pool.node(1).remediation()).as("node 1 rebooted").isNull();
        assertThat(pool.node(2).remediation().step()).isEqualTo(Step.Waiting);
        assertThat(pool.state.wakeAt()).isEqualTo(Fixtures.T0.plus(BOOT).plus(Duration.ofMinutes(10)));

        pool.tick(Duration.ofMinutes(10));
        assertThat(pool.node(2).remediation().step()).isNotEqualTo(Step.Waiting);
    }

    @Test
    void shouldTakeTheMostRestrictiveBudgetInForce() {
        registered(withBudgets(
                spec(10),
                new Budget("50%", null, null, null, null, null),
                new Budget("2", null, null, List.of("Unhealthy"), null, null)));
        busy(1, 2, 3, 4);

        pool.raise(1, REBOOT).raise(2, REBOOT).raise(3, REBOOT).raise(4, REBOOT);

        assertThat(pool.state.nodes().values().stream()
                        .filter(n -> n.remediation() != null && n.remediation().underway()))
                .hasSize(2);
    }
}
