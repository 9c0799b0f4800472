package com.coreweave.nodepool.provisioner.domain.fleet;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.condition;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Gpu;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationUpdateStrategy;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.util.List;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The simulated fleet's failure paths besides boots: undeliverable machines, failed removals and failed configuration
 * stagings (both retried), and drains blocked by a workload's disruption budget.
 */
public class FleetFaultsTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    public static final Duration RETRY = FleetFaults.NONE.retryInterval();

    static PoolDriver faulty(double delivery, double removal, double staging, LongPredicate seedWanted) {
        return new PoolDriver(faultyPolicy(delivery, removal, staging, seedWanted));
    }

    /** A policy whose fleet fails deliveries, removals and stagings at those rates, with the first seed wanted. */
    public static ProvisioningPolicy faultyPolicy(
            double delivery, double removal, double staging, LongPredicate seedWanted) {
        long seed = LongStream.range(0, 100_000).filter(seedWanted).findFirst().orElseThrow();
        ProvisioningPolicy base = policy(BOOT);
        return new ProvisioningPolicy(
                BOOT,
                0.0,
                seed,
                base.failingImages(),
                3,
                base.drainGrace(),
                1,
                base.scaleUpAfter(),
                base.scaleDownUnneededTime(),
                new FleetFaults(delivery, removal, staging, RETRY),
                RepairPolicy.DEFAULTS);
    }

    static boolean fails(String what, int attempt, long seed) {
        return SimulatedFleet.draw(what, attempt, seed) < 0.5;
    }

    @Test
    void aMachineTheFleetCannotDeliverIsReleasedToMaintenanceAndTheNextGrantBecomesTheNode() {
        PoolDriver pool = faulty(
                0.5, 0, 0, s -> fails(machine(1) + "#deliver", 101, s) && !fails(machine(2) + "#deliver", 102, s));
        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1)));

        assertThat(pool.lastReasons()).containsExactly("CWNodeDeliverFail");
        assertThat(pool.last.events()).extracting(RecordedEvent::type).containsExactly("Warning");
        assertThat(pool.lastFacts(NodeRemoved.class)).singleElement().satisfies(removed -> {
            assertThat(removed.cause()).isEqualTo("DeliverFailed");
            assertThat(removed.outOfService()).isTrue();
            assertThat(removed.grant()).isEqualTo(grant(1));
        });
        assertThat(pool.summary().deliveryError()).contains(machine(1), "could not be delivered");

        pool.grants(capacity(1, grant(1), grant(2)));
        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(NodeAssigned::grant)
                .containsExactly(grant(2));
        assertThat(pool.summary().deliveryError()).isNull();
    }

    @Test
    void aFailedRemovalKeepsTheNodePendingRemovalAndIsRetriedUntilItGoes() {
        PoolDriver pool =
                faulty(0, 0.5, 0, s -> fails(machine(2) + "#remove", 1, s) && !fails(machine(2) + "#remove", 2, s));
        pool.registered(Lifecycle.IDLE_ONLY, 2);

        pool.spec(accepted(spec(1), 2));

        assertThat(pool.lastReasons()).containsExactly("CWNodePoolRemoveNodes", "CWNodePoolNodesRemoveError");
        Node stuck = pool.node(2).node();
        assertThat(condition(stuck, Node.CONDITION_REMOVAL))
                .extracting(Condition::status, Condition::reason)
                .containsExactly(Condition.TRUE, "ScaleDown");
        assertThat(pool.summary().removalError()).contains(machine(2), "attempt 1", "retrying");
        assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(RETRY));

        pool.tick(RETRY);
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeDeleted", "CWNodePoolNodesRemoved", "CWNodePoolScaledDown");
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::cause)
                .containsExactly("ScaleDown");
        assertThat(pool.summary().removalError()).isNull();
    }

    @Test
    void aDeletionWhoseRemovalFailsReportsTheErrorUntilTheRetrySucceeds() {
        PoolDriver pool =
                faulty(0, 0.5, 0, s -> fails(machine(1) + "#remove", 1, s) && !fails(machine(1) + "#remove", 2, s));
        pool.registered(Lifecycle.IDLE_ONLY, 1);

        pool.spec(accepted(Fixtures.UID, spec(1), 1, true));
        assertThat(pool.summary())
                .extracting(s -> s.deleting(), s -> s.nodesRemoved())
                .containsExactly(true, false);
        assertThat(pool.summary().removalError()).isNotNull();

        pool.tick(RETRY);
        assertThat(pool.summary().nodesRemoved()).isTrue();
        assertThat(pool.summary().removalError()).isNull();
    }

    @Test
    void aConfigurationThatCannotBeStagedIsRetriedBeforeTheReconfigureReboot() {
        PoolDriver pool =
                faulty(0, 0, 0.5, s -> fails(machine(1) + "#stage", 1, s) && !fails(machine(1) + "#stage", 2, s));
        NodePoolSpec spec = gpu(spec(1), "550");
        pool.spec(accepted(spec, 1)).grants(capacity(1, grant(1))).tick(BOOT);
        pool.spec(accepted(gpu(spec, "560"), 2));

        pool.configuration(new NodeConfigurationRequested(
                "re-1",
                Fixtures.ORG,
                Fixtures.POOL,
                Fixtures.UID,
                NodeConfigurationRequested.Action.Reconfigure,
                null,
                List.of(),
                Fixtures.T0));

        assertThat(pool.lastReasons()).containsExactly("CWNodeConfigStagingFailed");
        assertThat(pool.last.events()).extracting(RecordedEvent::type).containsExactly("Warning");
        assertThat(pool.summary().stagingError()).contains(machine(1), "attempt 1");
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);

        pool.tick(RETRY);
        assertThat(pool.lastReasons()).containsExactly("CWConfigStaged");
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Booting);
        assertThat(pool.summary().stagingError()).isNull();
        pool.tick(BOOT);
        assertThat(pool.lastReasons()).containsExactly("CWReconfigureRebooted");
    }

    static NodePoolSpec gpu(NodePoolSpec s, String driver) {
        return new NodePoolSpec(
                s.computeClass(),
                s.instanceType(),
                s.targetNodes(),
                null,
                null,
                s.nodeLabels(),
                s.nodeAnnotations(),
                s.nodeTaints(),
                null,
                new Gpu(driver),
                false,
                s.lifecycle(),
                new NodeConfigurationUpdateStrategy(NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE),
                s.region());
    }

    @Test
    void aDrainBlockedByADisruptionBudgetSaysSoAndDeletesThePodsWhenTheGracePeriodEnds() {
        PoolDriver pool = new PoolDriver(policy(BOOT));
        pool.registered(Lifecycle.PREFER_IDLE, 2);
        pool.report(new NodeActivityReported(Fixtures.ORG, Fixtures.POOL, machine(2), true, 20, Fixtures.T0, 0));
        pool.report(activity(1, true, null));

        pool.spec(accepted(Fixtures.withStrategy(spec(1), Lifecycle.PREFER_IDLE), 2));
        assertThat(pool.lastReasons())
                .containsExactly(
                        "CWNodePoolRemoveNodes",
                        "CWNodeCordoned",
                        "CWNodeDraining",
                        "CWDrainNode",
                        "CWNodeDrainingPDBViolation");
        assertThat(pool.events)
                .filteredOn(e -> e.reason().equals("CWNodeDrainingPDBViolation"))
                .extracting(RecordedEvent::type, e -> e.involvedObject().name())
                .containsExactly(tuple("Warning", machine(2)));

        pool.tick(Duration.ofSeconds(20));
        assertThat(pool.lastReasons())
                .containsExactly(
                        "CWNodeDrainingForceDelete", "CWNodeDeleted", "CWNodePoolNodesRemoved", "CWNodePoolScaledDown");
    }

    @Test
    void aDisruptionBudgetReportedDuringADrainSaysTheDrainIsBlockedOnce() {
        PoolDriver pool = new PoolDriver(policy(BOOT));
        pool.registered(Lifecycle.PREFER_IDLE, 1);
        pool.report(activity(1, true, 60));
        pool.spec(accepted(Fixtures.withStrategy(spec(0), Lifecycle.PREFER_IDLE), 2));
        assertThat(pool.allReasons()).doesNotContain("CWNodeDrainingPDBViolation");

        var blocked = new NodeActivityReported(Fixtures.ORG, Fixtures.POOL, machine(1), true, 60, Fixtures.T0, 0);
        pool.report(blocked).report(blocked);

        assertThat(pool.allReasons())
                .filteredOn("CWNodeDrainingPDBViolation"::equals)
                .hasSize(1);
        pool.report(activity(1, false, null));
        assertThat(pool.lastReasons())
                .containsExactly("CWNodeDeleted", "CWNodePoolNodesRemoved", "CWNodePoolScaledDown");
    }
}
