package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.resource.Node;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * What a pool's status counts of its nodes, kept up to date node by node: a fact about one node of a 5,000-node pool
 * moves the counts by that node, where counting them all for every fact took the api-service's whole thread.
 *
 * <ul>
 *   <li>current: present in the cluster (the reference's {@code currentNodes}): registered, draining, or rebooting in
 *       place (booting again after it had registered: a reconfigure or health reboot; {@code rebooting} counts those);
 *   <li>in progress: assigned but not booted into the cluster yet (the reference's {@code inProgress}): a first boot,
 *       or a boot retried after a failure;
 *   <li>being removed, and how many run each node configuration.
 * </ul>
 */
public record NodeTally(int current, int inProgress, int rebooting, int removing, Map<String, Integer> profiles) {

    public static final NodeTally NONE = new NodeTally(0, 0, 0, 0, Map.of());

    public NodeTally {
        profiles = Map.copyOf(profiles);
    }

    public static NodeTally of(Collection<Node> nodes) {
        NodeTally tally = NONE;
        for (Node node : nodes) {
            tally = tally.plus(node);
        }
        return tally;
    }

    /** The counts once {@code before} (null: none) became {@code after} (null: gone). */
    public NodeTally replacing(Node before, Node after) {
        return before == after ? this : minus(before).plus(after);
    }

    /** Nodes on a configuration other than {@code profile} (those that name one). */
    public int outdated(String profile) {
        int outdated = 0;
        for (Map.Entry<String, Integer> running : profiles.entrySet()) {
            if (!running.getKey().equals(profile)) {
                outdated += running.getValue();
            }
        }
        return outdated;
    }

    private NodeTally plus(Node node) {
        return node == null ? this : moved(node, 1);
    }

    private NodeTally minus(Node node) {
        return node == null ? this : moved(node, -1);
    }

    private NodeTally moved(Node node, int by) {
        Map<String, Integer> byProfile = profiles;
        String profile = node.status().nodeProfile();
        if (profile != null) {
            byProfile = new HashMap<>(profiles);
            byProfile.merge(profile, by, (a, b) -> a + b == 0 ? null : a + b);
        }
        return new NodeTally(
                current + (current(node) ? by : 0),
                inProgress + (node.phase() == Node.Phase.Booting && !rebootingInPlace(node) ? by : 0),
                rebooting + (rebootingInPlace(node) ? by : 0),
                removing + (removal(node) ? by : 0),
                byProfile);
    }

    private static boolean current(Node node) {
        return node.phase() == Node.Phase.Registered || node.phase() == Node.Phase.Draining || rebootingInPlace(node);
    }

    /** Booting again after it had registered (the provisioner keeps {@code registeredAt} through such a reboot). */
    private static boolean rebootingInPlace(Node node) {
        return node.phase() == Node.Phase.Booting && node.status().registeredAt() != null;
    }

    private static boolean removal(Node node) {
        return node.status().conditions() != null
                && node.status().conditions().stream()
                        .anyMatch(c -> c.type().equals(Node.CONDITION_REMOVAL) && c.isTrue());
    }
}
