package com.coreweave.nodepool.provisioner.domain.fleet;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.faults.ArmedFault;
import com.coreweave.nodepool.kit.faults.FaultScope;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An operator's armed fault fails the fleet's step for the pools in its scope, through the real failure path. */
class FleetFaultPointsTest {

    static final Duration BOOT = Duration.ofSeconds(10);

    final InjectedFaults faults = new InjectedFaults(FleetFaultPoints.POINTS.names());

    PoolDriver pool() {
        ProvisioningPolicy base = policy(BOOT);
        return new PoolDriver(base.withFaults(base.faults().withInjected(faults)));
    }

    void arm(String point, String org, String pool, Integer count) {
        faults.arm(new ArmedFault(point, new FaultScope(null, org, pool), count, null, "drill", "admin", Fixtures.T0));
    }

    @Test
    void anArmedDeliveryFaultFailsOneDeliveryAndTheNextGrantBecomesTheNode() {
        PoolDriver pool = pool();
        arm(FleetFaultPoints.NODE_DELIVERY, Fixtures.ORG, Fixtures.POOL, 1);

        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1)));

        assertThat(pool.lastReasons()).containsExactly("CWNodeDeliverFail");
        assertThat(pool.summary().deliveryError()).contains("injected fault node-delivery@org=demo,pool=train");
        pool.grants(capacity(1, grant(1), grant(2)));
        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(NodeAssigned::grant)
                .containsExactly(grant(2));
    }

    @Test
    void aFaultOfAnotherPoolChangesNothing() {
        PoolDriver pool = pool();
        arm(FleetFaultPoints.NODE_DELIVERY, Fixtures.ORG, "another", null);

        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1)));

        assertThat(pool.lastFacts(NodeAssigned.class))
                .extracting(NodeAssigned::grant)
                .containsExactly(grant(1));
    }

    @Test
    void anArmedRemovalFaultKeepsTheNodeUntilDisarmed() {
        PoolDriver pool = pool();
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        arm(FleetFaultPoints.NODE_REMOVAL, Fixtures.ORG, null, null);

        pool.spec(accepted(spec(1), 2));
        assertThat(pool.lastReasons()).contains("CWNodePoolNodesRemoveError");
        pool.tick(FleetFaults.NONE.retryInterval());
        assertThat(pool.lastReasons()).contains("CWNodePoolNodesRemoveError");

        faults.disarm(FleetFaultPoints.NODE_REMOVAL, new FaultScope(null, Fixtures.ORG, null));
        pool.tick(FleetFaults.NONE.retryInterval());
        assertThat(pool.lastReasons()).contains("CWNodeDeleted");
        assertThat(pool.summary().removalError()).isNull();
    }
}
