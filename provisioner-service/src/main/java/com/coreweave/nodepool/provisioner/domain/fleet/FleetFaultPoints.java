package com.coreweave.nodepool.provisioner.domain.fleet;

import com.coreweave.nodepool.kit.faults.FaultPoints;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.PoolRef;

/**
 * The provisioner's fault points: where an operator's armed fault ({@code /admin/faults}) fails the fleet's step for a
 * pool in its scope before the simulated fleet is asked, so that the same failure path runs as for a real failure.
 */
public final class FleetFaultPoints {

    /** A granted machine cannot be delivered: {@code CWNodeDeliverFail}, AtTarget {@code InternalError}. */
    public static final String NODE_DELIVERY = "node-delivery";

    /** A boot does not register: {@code CWNodeRegistrationFailed}, and the node is booted again. */
    public static final String NODE_REGISTRATION = "node-registration";

    /** A removal fails: {@code CWNodePoolNodesRemoveError}, AtTarget or NodesRemoved {@code InternalError}. */
    public static final String NODE_REMOVAL = "node-removal";

    /**
     * Staging a configuration fails: {@code CWNodeConfigStagingFailed}, NodeReconfigurationRequired
     * {@code InternalError}.
     */
    public static final String CONFIG_STAGING = "config-staging";

    public static final FaultPoints POINTS =
            FaultPoints.of(NODE_DELIVERY, NODE_REGISTRATION, NODE_REMOVAL, CONFIG_STAGING);

    private FleetFaultPoints() {}

    public static String bootFailure(ProvisioningPolicy policy, WorkingPool pool, String machine, int attempt) {
        String injected = fire(policy, pool, NODE_REGISTRATION);
        return injected == null
                ? SimulatedFleet.bootFailure(policy, pool.spec(), machine, attempt)
                : "Node " + machine + " did not register: " + injected + " (attempt " + attempt + ").";
    }

    public static String deliveryFailure(ProvisioningPolicy policy, WorkingPool pool, Grant grant) {
        String injected = fire(policy, pool, NODE_DELIVERY);
        return injected == null
                ? SimulatedFleet.deliveryFailure(policy, grant)
                : "Machine " + grant.machine() + " could not be delivered to the NodePool: " + injected
                        + "; it goes to maintenance and another machine is requested.";
    }

    public static boolean removalFails(ProvisioningPolicy policy, WorkingPool pool, String machine, int attempt) {
        return fire(policy, pool, NODE_REMOVAL) != null || SimulatedFleet.removalFails(policy, machine, attempt);
    }

    public static boolean stagingFails(ProvisioningPolicy policy, WorkingPool pool, String machine, int attempt) {
        return fire(policy, pool, CONFIG_STAGING) != null || SimulatedFleet.stagingFails(policy, machine, attempt);
    }

    private static String fire(ProvisioningPolicy policy, WorkingPool pool, String point) {
        PoolRef ref = pool.ref();
        return policy.faults().injected().fire(point, ref.zone(), ref.org(), ref.pool(), pool.now());
    }
}
