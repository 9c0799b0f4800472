package com.coreweave.nodepool.provisioner.domain.fleet;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.nio.charset.StandardCharsets;

/**
 * Decides what the simulated fleet fails: a boot attempt (always for an image listed as failing, otherwise when a hash
 * of (machine, attempt, seed) falls below the boot failure rate), the delivery of a granted machine, a node removal,
 * the staging of a configuration onto a node (each by its own rate of {@link FleetFaults}). Deterministic, so a replay
 * after a crash decides the same way and tests can rely on it.
 */
public final class SimulatedFleet {

    private SimulatedFleet() {}

    /** Why the boot attempt failed, or null when the node registers. */
    public static String bootFailure(ProvisioningPolicy policy, NodePoolSpec spec, String machine, int attempt) {
        String image = spec.image() == null ? null : spec.image().name();
        if (image != null && policy.failingImages().contains(image)) {
            return "Node " + machine + " did not register: image " + image + " does not boot (attempt " + attempt
                    + ").";
        }
        if (draw(machine, attempt, policy.bootFailureSeed()) < policy.bootFailureRate()) {
            return "Node " + machine + " did not register: the kubelet did not join the cluster (attempt " + attempt
                    + ").";
        }
        return null;
    }

    /** Why the granted machine cannot be delivered to the pool, or null when it can. */
    public static String deliveryFailure(ProvisioningPolicy policy, Grant grant) {
        if (draw(grant.machine() + "#deliver", (int) grant.grantId(), policy.bootFailureSeed())
                < policy.faults().deliveryFailureRate()) {
            return "Machine " + grant.machine() + " could not be delivered to the NodePool: it failed its pre-delivery "
                    + "checks and goes to maintenance; another machine is requested.";
        }
        return null;
    }

    /** Whether removing the node fails this time ({@code attempt} counts from 1). */
    public static boolean removalFails(ProvisioningPolicy policy, String machine, int attempt) {
        return draw(machine + "#remove", attempt, policy.bootFailureSeed())
                < policy.faults().removalFailureRate();
    }

    /** Whether staging a configuration onto the node for its reconfigure reboot fails this time. */
    public static boolean stagingFails(ProvisioningPolicy policy, String machine, int attempt) {
        return draw(machine + "#stage", attempt, policy.bootFailureSeed())
                < policy.faults().stagingFailureRate();
    }

    /** A number in [0, 1) fixed by its inputs (FNV-1a over the text, then a SplitMix64 finish). */
    public static double draw(String machine, int attempt, long seed) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : (machine + "|" + attempt + "|" + seed).getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        hash ^= hash >>> 30;
        hash *= 0xbf58476d1ce4e5b9L;
        hash ^= hash >>> 27;
        hash *= 0x94d049bb133111ebL;
        hash ^= hash >>> 31;
        return (hash >>> 11) / (double) (1L << 53);
    }
}
