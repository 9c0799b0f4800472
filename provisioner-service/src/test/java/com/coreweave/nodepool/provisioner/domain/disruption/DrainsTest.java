package com.coreweave.nodepool.provisioner.domain.disruption;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.ORG;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.POOL;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.T0;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.withStrategy;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How a drain of a node leaving the pool goes: it waits for the workload to go idle or for its grace period to end, and
 * says when it deleted pods ungracefully or when the workload's disruption budget blocks it.
 */
class DrainsTest {

    static final Duration BOOT = Duration.ofSeconds(5);
    /** The policy's grace period for a workload that reported none. */
    static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);

    PoolDriver pool = new PoolDriver(policy(BOOT));

    @BeforeEach
    void oneRegisteredNode() {
        pool.registered(Lifecycle.PREFER_IDLE, 1);
    }

    @Test
    void shouldRemoveAnIdleNodeWithoutDeletingItsPodsUngracefully() {
        report(false, 60, null);

        scaleToZero();

        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.allReasons()).doesNotContain("CWNodeDrainingForceDelete", "CWNodeDrainingPDBViolation");
    }

    @Test
    void shouldDrainABusyNodeUntilItsGracePeriodEndsThenDeleteItsPodsUngracefully() {
        report(true, 10, null);

        scaleToZero();
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Draining);
        pool.tick(Duration.ofSeconds(9));
        assertThat(pool.state.nodes()).as("still draining").hasSize(1);
        pool.tick(Duration.ofSeconds(1));

        assertThat(pool.state.nodes()).isEmpty();
        assertThat(event("CWNodeDrainingForceDelete").message())
                .contains(machine(1), "deleted ungracefully")
                .doesNotContain("PodDisruptionBudget");
    }

    @Test
    void shouldEndTheDrainWithoutForceWhenTheWorkloadGoesIdleFirst() {
        report(true, 60, null);
        scaleToZero();

        report(false, 60, null);

        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.allReasons()).doesNotContain("CWNodeDrainingForceDelete");
    }

    @Test
    void shouldSayTheDrainIsBlockedWhenTheDisruptionBudgetAllowsNoEviction() {
        report(true, 10, 0);

        scaleToZero();

        assertThat(pool.lastReasons()).contains("CWNodeDrainingPDBViolation");
        assertThat(event("CWNodeDrainingPDBViolation").message())
                .contains(machine(1), "PodDisruptionBudget", T0.toString().substring(0, 10));
        pool.tick(Duration.ofSeconds(10));
        assertThat(pool.state.nodes())
                .as("the grace period ends a blocked drain too")
                .isEmpty();
        assertThat(event("CWNodeDrainingForceDelete").message())
                .contains("evictions blocked by its PodDisruptionBudget");
    }

    @Test
    void shouldUseThePolicysGracePeriodWhenTheWorkloadReportedNone() {
        report(true, null, null);

        scaleToZero();
        pool.tick(DEFAULT_GRACE.minusSeconds(1));
        assertThat(pool.state.nodes()).hasSize(1);
        pool.tick(Duration.ofSeconds(1));

        assertThat(pool.state.nodes()).isEmpty();
    }

    private void report(boolean active, Integer graceSeconds, Integer disruptionsAllowed) {
        pool.report(
                new NodeActivityReported(ORG, POOL, machine(1), active, graceSeconds, pool.now, disruptionsAllowed));
    }

    private void scaleToZero() {
        pool.spec(accepted(withStrategy(spec(0), Lifecycle.PREFER_IDLE), 2));
    }

    private RecordedEvent event(String reason) {
        return pool.events.stream()
                .filter(e -> e.reason().equals(reason))
                .reduce((a, b) -> b)
                .orElseThrow();
    }
}
