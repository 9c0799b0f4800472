package com.coreweave.nodepool.provisioner.domain.disruption;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A do-not-disrupt hold keeps a node from voluntary disruptions, and only from those. */
class DoNotDisruptTest {

    static final String HELD_BY_ANNOTATION = "annotation compute.coreweave.com/do-not-disrupt=true";

    PoolDriver pool = new PoolDriver(policy(Duration.ofSeconds(10)));
    int changes;

    NodeChangeRequested annotate(int machine, boolean hold) {
        return Fixtures.hold("hold-" + (++changes), machine, hold);
    }

    static NodeActivityReported busy(int machine, boolean doNotDisrupt) {
        return new NodeActivityReported(
                Fixtures.ORG, Fixtures.POOL, machine(machine), true, null, Fixtures.T0, null, doNotDisrupt);
    }

    List<String> removed() {
        return pool.lastFacts(NodeRemoved.class).stream()
                .map(f -> f.node().name())
                .toList();
    }

    List<DisruptionStatus.Blocked> blocked() {
        DisruptionStatus disruption = pool.summary().disruption();
        return disruption == null || disruption.blocked() == null ? List.of() : disruption.blocked();
    }

    @Test
    void aScaleDownTakesTheNodesThatAreNotHeldAndSaysWhichWaitWhenOnlyHeldOnesAreLeft() {
        pool.registered(Lifecycle.IDLE_ONLY, 3);
        pool.change(annotate(3, true));

        pool.spec(accepted(spec(1), 2));
        assertThat(removed()).as("the newest node is held: the next two go").containsExactly(machine(2), machine(1));
        assertThat(blocked()).isEmpty();

        pool.spec(accepted(spec(0), 3));
        assertThat(removed()).isEmpty();
        String message = "1 node(s) to leave for the scale-down to 0 are held by do-not-disrupt: " + machine(3) + " ("
                + HELD_BY_ANNOTATION + ").";
        assertThat(pool.messages("DisruptionBlocked")).containsExactly(message);
        assertThat(blocked()).containsExactly(new DisruptionStatus.Blocked("ScaleDown", message));

        pool.tick(Duration.ofMinutes(10));
        assertThat(pool.messages("DisruptionBlocked")).as("said once").hasSize(1);

        pool.change(annotate(3, false));
        assertThat(removed()).containsExactly(machine(3));
        assertThat(blocked()).isEmpty();
    }

    @Test
    void aWorkloadHoldsItsNodeWhileItRunsAndSaysSoOnTheNode() {
        pool.registered(Lifecycle.PREFER_IDLE, 2);
        pool.report(busy(1, false)).report(busy(2, true));
        assertThat(Fixtures.condition(pool.node(2).published(), Node.CONDITION_ACTIVE))
                .extracting(Condition::status, Condition::reason)
                .containsExactly(Condition.TRUE, NodeTemplate.ACTIVE_HELD);
        assertThat(Fixtures.condition(pool.node(1).published(), Node.CONDITION_ACTIVE)
                        .reason())
                .isEqualTo(NodeTemplate.ACTIVE);

        pool.spec(accepted(Fixtures.withStrategy(spec(1), Lifecycle.PREFER_IDLE), 2));
        assertThat(pool.node(1).leaving()).as("the unheld busy node drains").isTrue();
        assertThat(pool.node(2).leaving()).isFalse();

        pool.spec(accepted(Fixtures.withStrategy(spec(0), Lifecycle.PREFER_IDLE), 3));
        assertThat(pool.node(2).leaving()).isFalse();
        assertThat(pool.messages("DisruptionBlocked"))
                .last()
                .asString()
                .endsWith("held by do-not-disrupt: " + machine(2) + " (its workload).");

        pool.report(busy(2, false));
        assertThat(Fixtures.condition(pool.node(2).published(), Node.CONDITION_ACTIVE)
                        .reason())
                .isEqualTo(NodeTemplate.ACTIVE);
        assertThat(pool.node(2).leaving()).as("released, it drains").isTrue();
    }

    @Test
    void deletingThePoolIsTheUsersOwnAskAndTakesHeldNodesToo() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        pool.change(annotate(1, true));
        pool.report(busy(2, true));

        pool.spec(accepted(Fixtures.UID, spec(2), 2, true));
        assertThat(removed()).as("the idle held node goes at once").containsExactly(machine(1));
        assertThat(pool.node(2).phase()).as("the busy held node drains").isEqualTo(Node.Phase.Draining);
        assertThat(pool.messages("DisruptionBlocked")).isEmpty();
    }
}
