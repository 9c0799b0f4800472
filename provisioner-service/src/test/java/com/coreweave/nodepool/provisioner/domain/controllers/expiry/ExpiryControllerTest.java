package com.coreweave.nodepool.provisioner.domain.controllers.expiry;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.Ledger;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.resource.Disruption;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Nodes older than the pool's expireAfter are rotated oldest first, within the Expired budgets. */
class ExpiryControllerTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration HOUR = Duration.ofHours(1);

    PoolDriver pool = new PoolDriver(policy(BOOT));
    Ledger ledger = new Ledger(8);

    void registered(NodePoolSpec spec) {
        pool.spec(accepted(spec, 1));
        pool.grants(ledger.grant(pool.facts, spec.targetNodes(), 1));
        pool.tick(BOOT);
    }

    List<String> removed() {
        return pool.lastFacts(NodeRemoved.class).stream()
                .map(f -> f.node().name() + "/" + f.cause())
                .toList();
    }

    /** Time passes; the ledger grants what the pool lacks, and what it grants boots. */
    void replaced(int target) {
        pool.grants(ledger.grant(pool.facts, target, 1));
        pool.tick(BOOT);
    }

    @Test
    void expiredNodesAreRotatedOneAtATimeUnderThePlatformsDefaultBudget() {
        registered(Fixtures.withExpiry(spec(3), "1h"));
        Instant born = pool.node(1).node().metadata().creationTimestamp();
        assertThat(pool.state.wakeAt()).as("woken when the first node expires").isEqualTo(born.plus(HOUR));

        pool.tick(HOUR.minus(BOOT).minusSeconds(1));
        assertThat(removed()).isEmpty();

        pool.tick(Duration.ofSeconds(1));
        assertThat(removed()).containsExactly(machine(1) + "/Expired");
        assertThat(pool.lastReasons()).contains("NodeExpired", "CWNodeDeleted", "CWNodePoolNodesRemoved");
        assertThat(pool.messages("DisruptionBlocked"))
                .containsExactly("2 node(s) past expireAfter \"1h\" wait for the disruption budget: the platform's"
                        + " default budget nodes \"10%\" (1 of 3) allows no more now, 1 out of service.");

        pool.tick(Duration.ofMinutes(1));
        assertThat(removed())
                .as("the next waits for the replacement to be Ready")
                .isEmpty();

        replaced(3);
        assertThat(removed()).containsExactly(machine(2) + "/Expired");
        replaced(3);
        assertThat(removed()).containsExactly(machine(3) + "/Expired");
        replaced(3);
        assertThat(pool.state.nodes().values())
                .allSatisfy(
                        n -> assertThat(n.node().metadata().creationTimestamp()).isAfter(born.plus(HOUR)))
                .hasSize(3);
        assertThat(pool.summary().disruption()).isNull();
    }

    @Test
    void aBusyExpiredNodeIsDrainedFirstAndAHeldOneWaits() {
        registered(Fixtures.withExpiry(spec(2), "1h", new Disruption.Budget("2", null, null, null, null, null)));
        pool.report(activity(1, true, 60));
        pool.change(Fixtures.hold("hold-1", 2, true));

        pool.tick(HOUR);
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Draining);
        assertThat(pool.node(1).removal()).hasToString("Expired");
        assertThat(pool.node(2).leaving()).isFalse();
        assertThat(pool.messages("DisruptionBlocked"))
                .containsExactly("1 node(s) past expireAfter \"1h\" are held by do-not-disrupt: " + machine(2)
                        + " (annotation compute.coreweave.com/do-not-disrupt=true).");

        pool.report(activity(1, false, null));
        assertThat(pool.lastFacts(NodeRemoved.class))
                .extracting(f -> f.node().name(), NodeRemoved::cause)
                .containsExactly(tuple(machine(1), "Expired"));
    }

    @Test
    void aPoolWithoutExpiryNeverRotatesAndSetsNoTimer() {
        registered(spec(2));
        assertThat(pool.state.wakeAt()).isNull();
        pool.tick(Duration.ofDays(400));
        assertThat(pool.allFacts(NodeRemoved.class)).isEmpty();
        assertThat(pool.allReasons()).doesNotContain("NodeExpired");
    }
}
