package com.coreweave.nodepool.provisioner.domain.controllers.lifecycle;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.BROKEN_IMAGE;
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
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.fleet.SimulatedFleet;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRegistered;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRegistrationFailed;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.NodeFact.NodeUpdated;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The life of nodes: boots, boot failures and the disabled pool, drains, the spec's metadata, activity. */
class LifecycleControllerTest {

    static final Duration BOOT = Duration.ofSeconds(10);

    PoolDriver pool = new PoolDriver(policy(BOOT));

    @Test
    void bootingNodesRegisterWhenTheirBootTimeIsUpAndTheScaleUpIsAnnounced() {
        pool.spec(accepted(spec(2), 1)).grants(capacity(1, grant(1), grant(2)));

        pool.tick(BOOT.minusMillis(1));
        assertThat(pool.last.facts()).isEmpty();
        assertThat(pool.state.wakeAt()).isEqualTo(Fixtures.T0.plus(BOOT));

        pool.tick(Duration.ofMillis(1));
        assertThat(pool.lastFacts(NodeRegistered.class))
                .extracting(f -> f.node().name())
                .containsExactly(machine(1), machine(2));
        Node registered = pool.node(1).node();
        assertThat(registered.phase()).isEqualTo(Node.Phase.Registered);
        assertThat(registered.status().registeredAt()).isEqualTo(pool.now);
        assertThat(Fixtures.condition(registered, Node.CONDITION_REGISTERED).status())
                .isEqualTo(Condition.TRUE);
        assertThat(pool.lastReasons()).containsExactly("CWNodeRegistered", "CWNodeRegistered", "CWNodePoolScaledUp");
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress)
                .containsExactly(2, 0);
        assertThat(pool.state.wakeAt()).isNull();
    }

    @Test
    void withNoBootTimeANodeRegistersInTheReconcileThatAssignedItWithOneFact() {
        pool = new PoolDriver(policy(Duration.ZERO));
        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1)));

        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);
        // Each reconcile pass sums the pool up; the processor writes only the last summary of a commit
        // (SummaryPerCommitTest).
        assertThat(pool.last.facts())
                .filteredOn(f -> !(f instanceof NodePoolReconciled))
                .as("the registration stands for the assignment made in the same transaction")
                .hasExactlyElementsOfTypes(NodeRegistered.class);
        assertThat(pool.lastFacts(NodeRegistered.class))
                .singleElement()
                .satisfies(r -> assertThat(r.grant()).isEqualTo(grant(1)));
        assertThat(pool.lastReasons()).as("both events are recorded").contains("CWNodeAssigned", "CWNodeRegistered");
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress)
                .containsExactly(1, 0);
        assertThat(pool.state.wakeAt()).isNull();
    }

    @Test
    void aFailedBootIsTriedAgainWithTheNextAttempt() {
        pool = new PoolDriver(new ProvisioningPolicy(
                BOOT,
                1.0,
                0,
                Set.of(),
                5,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME));
        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1))).tick(BOOT);

        NodeRegistrationFailed failed =
                pool.lastFacts(NodeRegistrationFailed.class).get(0);
        assertThat(failed.node().phase()).isEqualTo(Node.Phase.Failed);
        assertThat(failed.node().status().bootAttempt()).isEqualTo(1);
        assertThat(failed.message()).contains(machine(1)).contains("attempt 1");
        NodeUpdated retry = pool.lastFacts(NodeUpdated.class).get(0);
        assertThat(retry.change()).isEqualTo("BootRetried");
        assertThat(retry.node().phase()).isEqualTo(Node.Phase.Booting);
        assertThat(retry.node().status().bootAttempt()).isEqualTo(2);
        assertThat(pool.last.events())
                .extracting(RecordedEvent::reason, RecordedEvent::type)
                .containsExactly(tuple("CWNodeRegistrationFailed", "Warning"));
        assertThat(pool.state.bootFailureStreak()).isEqualTo(1);
        assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(BOOT));
    }

    @Test
    void aPoolWhoseNodesKeepFailingToBootIsDisabledTheirGrantsReleasedAndNothingBootsAgain() {
        pool.spec(accepted(Fixtures.withImage(spec(2), BROKEN_IMAGE), 1)).grants(capacity(1, grant(1), grant(2)));
        pool.tick(BOOT);
        assertThat(pool.state.disabled()).isFalse();
        pool.tick(BOOT);

        assertThat(pool.state.disabled()).isTrue();
        assertThat(pool.lastReasons()).contains("CWNodePoolDisabled");
        assertThat(pool.events)
                .filteredOn(e -> e.reason().equals("CWNodePoolDisabled"))
                .singleElement()
                .satisfies(e -> assertThat(e.type()).isEqualTo("Warning"));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(NodeRemoved::grant, NodeRemoved::cause)
                .containsExactlyInAnyOrder(tuple(grant(1), "BootFailed"), tuple(grant(2), "BootFailed"));
        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.summary().disabled()).isTrue();
        assertThat(pool.summary().disabledMessage()).contains("3 boot failures in a row");

        // The ledger grants the machines again: the disabled pool holds them without booting.
        pool.grants(capacity(1, new Grant(machine(1), 201), new Grant(machine(2), 202)));
        pool.tick(BOOT.multipliedBy(3));
        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.allFacts(NodeAssigned.class)).hasSize(2);
    }

    @Test
    void onlyFailuresInARowDisableAPoolAnySuccessStartsTheCountAgain() {
        // A seed under which, in name order, node 1 fails, node 2 registers, node 3 fails, and both retries register.
        long seed = LongStream.range(0, 100_000)
                .filter(s -> fails(1, 1, s) && !fails(2, 1, s) && fails(3, 1, s) && !fails(1, 2, s) && !fails(3, 2, s))
                .findFirst()
                .orElseThrow();
        pool = new PoolDriver(new ProvisioningPolicy(
                BOOT,
                0.5,
                seed,
                Set.of(),
                2,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME));
        pool.spec(accepted(spec(3), 1)).grants(capacity(1, grant(1), grant(2), grant(3)));

        pool.tick(BOOT);
        assertThat(pool.lastFacts(NodeRegistrationFailed.class)).hasSize(2);
        assertThat(pool.state.disabled()).isFalse();
        pool.tick(BOOT);
        assertThat(pool.nodes(Node.Phase.Registered)).hasSize(3);
        assertThat(pool.state.bootFailureStreak()).isZero();
    }

    static boolean fails(int machine, int attempt, long seed) {
        return SimulatedFleet.draw(machine(machine), attempt, seed) < 0.5;
    }

    @Test
    void aSpecChangeClearsTheDisabledFlagAndHeldGrantsBoot() {
        pool.spec(accepted(Fixtures.withImage(spec(1), BROKEN_IMAGE), 1)).grants(capacity(1, grant(1)));
        pool.tick(BOOT).tick(BOOT).tick(BOOT);
        assertThat(pool.state.disabled()).isTrue();
        pool.grants(capacity(1, new Grant(machine(1), 201)));

        pool.spec(accepted(Fixtures.withImage(spec(1), "good-image"), 2));
        assertThat(pool.state.disabled()).isFalse();
        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(f -> f.grant().grantId())
                .containsExactly(201L);
        pool.tick(BOOT);
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);
        assertThat(pool.summary().disabled()).isFalse();
    }

    @Test
    void aDrainedNodeLeavesWhenTheGracePeriodItsWorkloadReportedEnds() {
        pool.registered(Lifecycle.PREFER_IDLE, 1);
        pool.report(activity(1, true, 5));
        pool.spec(accepted(Fixtures.withStrategy(spec(0), Lifecycle.PREFER_IDLE), 2));
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Draining);

        pool.tick(Duration.ofSeconds(4));
        assertThat(pool.state.nodes()).hasSize(1);
        pool.tick(Duration.ofSeconds(1));
        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.lastFacts(NodeRemoved.class))
                .singleElement()
                .satisfies(r -> assertThat(r.node().phase()).isEqualTo(Node.Phase.Removed));
    }

    @Test
    void labelAnnotationAndTaintChangesAreAppliedToExistingNodes() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        Map<String, String> labels = new TreeMap<>(Map.of("team", "inference", Node.LABEL_ZONE, "elsewhere"));
        pool.spec(accepted(Fixtures.withLabels(spec(2), labels, List.of()), 2));

        List<NodeUpdated> updates = pool.lastFacts(NodeUpdated.class);
        assertThat(updates).hasSize(2).allMatch(u -> u.change().equals("Metadata"));
        Node updated = pool.node(1).node();
        assertThat(updated.metadata().labels())
                .containsEntry("team", "inference")
                .containsEntry(Node.LABEL_ZONE, "US-EAST-04A");
        assertThat(updated.spec().taints()).isNull();
        assertThat(pool.lastReasons()).containsExactly("CWNodePoolMetadata");

        pool.tick(Duration.ofSeconds(1));
        assertThat(pool.last.facts()).isEmpty();
    }

    @Test
    void activityChangesCWActiveOnceAndARepeatedReportChangesNothing() {
        pool.registered(Lifecycle.IDLE_ONLY, 1);
        pool.report(activity(1, true, 90));
        assertThat(pool.lastFacts(NodeUpdated.class)).singleElement().satisfies(u -> {
            assertThat(u.change()).isEqualTo(NodeTemplate.ACTIVE);
            assertThat(Fixtures.condition(u.node(), Node.CONDITION_ACTIVE).status())
                    .isEqualTo(Condition.TRUE);
        });
        assertThat(pool.node(1).graceSeconds()).isEqualTo(90);

        pool.report(activity(1, true, 90));
        assertThat(pool.last.facts()).isEmpty();

        pool.report(new NodeActivityReported(Fixtures.ORG, Fixtures.POOL, "no-such-node", true, null, Fixtures.T0));
        assertThat(pool.last.facts()).isEmpty();
    }
}
