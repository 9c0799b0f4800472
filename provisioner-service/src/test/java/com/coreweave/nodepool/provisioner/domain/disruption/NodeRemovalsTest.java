package com.coreweave.nodepool.provisioner.domain.disruption;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.condition;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaultsTest;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.fleet.SimulatedFleet;
import com.coreweave.nodepool.provisioner.domain.model.Outcome;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/** Removing a node from the pool, and the retries of a removal the fleet failed. */
class NodeRemovalsTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration RETRY = FleetFaultsTest.RETRY;

    /** A policy whose fleet fails removals at {@code rate}, with the first seed that {@code wanted} accepts. */
    static ProvisioningPolicy failingRemovals(double rate, LongPredicate wanted) {
        return FleetFaultsTest.faultyPolicy(0.0, rate, 0.0, wanted);
    }

    static boolean removalFails(int machine, int attempt, long seed) {
        return SimulatedFleet.draw(machine(machine) + "#remove", attempt, seed) < 0.5;
    }

    /** A registered pool of two nodes under that policy, opened for one reconcile at {@code now}. */
    static WorkingPool registeredPool(ProvisioningPolicy policy) {
        PoolDriver driver = new PoolDriver(policy).registered(Lifecycle.IDLE_ONLY, 2);
        return new WorkingPool(driver.state, driver.now);
    }

    static WorkingPool later(WorkingPool pool, Duration elapsed) {
        return new WorkingPool(pool.outcome().state(), pool.now().plus(elapsed));
    }

    static boolean removeNode1(NodeRemovals removals, WorkingPool pool) {
        return removals.remove(
                pool, pool.node(machine(1)), RemovalCause.ScaleDown, "Scaled down.", "Node deleted: scaled down.");
    }

    @Test
    void shouldRemoveTheNodeAndReleaseItsGrantWhenTheFleetReleasesTheMachine() {
        ProvisioningPolicy policy = policy(BOOT);
        WorkingPool pool = registeredPool(policy);

        boolean gone = removeNode1(new NodeRemovals(policy), pool);

        Outcome outcome = pool.outcome();
        assertThat(gone).isTrue();
        assertThat(outcome.state().nodes()).containsOnlyKeys(machine(2));
        assertThat(outcome.state().releasedGrants()).containsExactly(grant(1).grantId());
        assertThat(outcome.facts()).singleElement().isInstanceOfSatisfying(NodeRemoved.class, removed -> {
            assertThat(removed.cause()).isEqualTo("ScaleDown");
            assertThat(removed.grant()).isEqualTo(grant(1));
        });
        assertThat(outcome.events())
                .extracting(RecordedEvent::reason, RecordedEvent::message)
                .containsExactly(tuple("CWNodeDeleted", "Node deleted: scaled down."));
    }

    @Test
    void shouldKeepANodeWhoseRemovalFailedCordonedAndPendingRemovalUntilItsRetry() {
        ProvisioningPolicy policy = failingRemovals(1.0, s -> true);
        WorkingPool pool = registeredPool(policy);

        boolean gone = removeNode1(new NodeRemovals(policy), pool);

        Outcome outcome = pool.outcome();
        assertThat(gone).isFalse();
        PoolNode stuck = outcome.state().nodes().get(machine(1));
        assertThat(stuck.leaving()).isTrue();
        assertThat(stuck.removal()).isEqualTo(RemovalCause.ScaleDown);
        assertThat(stuck.node().spec().unschedulable()).isTrue();
        assertThat(condition(stuck.node(), Node.CONDITION_REMOVAL).status()).isEqualTo(Condition.TRUE);
        assertThat(stuck.retry().failures()).isEqualTo(1);
        assertThat(stuck.retry().at()).isEqualTo(pool.now().plus(RETRY));
        assertThat(stuck.retry().error()).contains(machine(1), "attempt 1", "retrying in " + RETRY.toSeconds() + "s");
        assertThat(NodeRemovals.retrying(stuck)).isTrue();
        assertThat(outcome.state().releasedGrants())
                .as("the grant is held until the node goes")
                .isEmpty();
        assertThat(outcome.facts()).noneMatch(NodeRemoved.class::isInstance);
        assertThat(outcome.facts())
                .singleElement()
                .isInstanceOfSatisfying(
                        NodeFact.NodeUpdated.class, u -> assertThat(u.change()).isEqualTo("RemovalFailed"));
        assertThat(outcome.events())
                .extracting(RecordedEvent::reason, RecordedEvent::type)
                .containsExactly(tuple("CWNodePoolNodesRemoveError", "Warning"));
    }

    @Test
    void shouldNotRetryAFailedRemovalBeforeItsDueTime() {
        FailedRemoval first = failedRemovalOfNode1();
        NodeRemovals removals = first.removals();
        WorkingPool failed = first.pool();

        WorkingPool early = later(failed, RETRY.minusMillis(1));
        removals.retryDue(early);

        Outcome outcome = early.outcome();
        assertThat(outcome.facts()).isEmpty();
        assertThat(outcome.events()).isEmpty();
        assertThat(outcome.state().nodes()).containsKey(machine(1));
    }

    @Test
    void shouldRetryARemovalThatFailedAtItsNextDueTime() {
        FailedRemoval first = failedRemovalOfNode1();
        NodeRemovals removals = first.removals();
        WorkingPool failed = first.pool();

        WorkingPool due = later(failed, RETRY);
        removals.retryDue(due);

        Outcome outcome = due.outcome();
        assertThat(outcome.state().nodes()).containsOnlyKeys(machine(2));
        assertThat(outcome.state().releasedGrants()).containsExactly(grant(1).grantId());
        assertThat(outcome.facts())
                .singleElement()
                .isInstanceOfSatisfying(
                        NodeRemoved.class,
                        r -> assertThat(r.cause())
                                .as("the retry keeps the cause of the removal")
                                .isEqualTo("ScaleDown"));
        assertThat(outcome.events()).singleElement().satisfies(e -> {
            assertThat(e.reason()).isEqualTo("CWNodeDeleted");
            assertThat(e.message()).contains(machine(1), "after 1 failed attempt(s)", "Scaled down.");
        });
    }

    @Test
    void shouldCountEveryFailedAttemptAndRetryAgainAfterEachFailure() {
        ProvisioningPolicy policy = failingRemovals(1.0, s -> true);
        NodeRemovals removals = new NodeRemovals(policy);
        WorkingPool failed = registeredPool(policy);
        removeNode1(removals, failed);

        WorkingPool second = later(failed, RETRY);
        removals.retryDue(second);
        WorkingPool third = later(second, RETRY);
        removals.retryDue(third);

        PoolNode stuck = third.outcome().state().nodes().get(machine(1));
        Instant expected = failed.now().plus(RETRY.multipliedBy(3));
        assertThat(stuck.retry().failures()).isEqualTo(3);
        assertThat(stuck.retry().at()).isEqualTo(expected);
        assertThat(stuck.retry().error()).contains("attempt 3");
        assertThat(second.outcome().events().getFirst().id())
                .as("each attempt's error is its own event")
                .isNotEqualTo(third.outcome().events().getFirst().id());
    }

    @Test
    void shouldLeaveNodesThatAreNotWaitingForARetryAlone() {
        ProvisioningPolicy policy = policy(BOOT);
        WorkingPool pool = registeredPool(policy);

        WorkingPool hourLater = later(pool, Duration.ofHours(1));
        new NodeRemovals(policy).retryDue(hourLater);

        assertThat(hourLater.outcome().facts()).isEmpty();
        assertThat(hourLater.outcome().state().nodes()).containsOnlyKeys(machine(1), machine(2));
        assertThat(hourLater.outcome().state().nodes().values()).noneMatch(NodeRemovals::retrying);
    }

    /** Node 1's removal failed at its first attempt, by a fleet that lets its second through. */
    private record FailedRemoval(NodeRemovals removals, WorkingPool pool) {}

    private static FailedRemoval failedRemovalOfNode1() {
        ProvisioningPolicy policy = failingRemovals(0.5, s -> removalFails(1, 1, s) && !removalFails(1, 2, s));
        NodeRemovals removals = new NodeRemovals(policy);
        WorkingPool pool = registeredPool(policy);
        removeNode1(removals, pool);
        return new FailedRemoval(removals, pool);
    }
}
