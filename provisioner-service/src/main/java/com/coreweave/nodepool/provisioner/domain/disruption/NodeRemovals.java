package com.coreweave.nodepool.provisioner.domain.disruption;

import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaultPoints;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;

/**
 * Removes nodes from the cluster and releases their grants ({@code CWNodeDeleted}, and {@code CWNodePoolNodesRemoved}
 * for a node that leaves outside a scale-down or a deletion). The simulated fleet may fail a removal
 * ({@code CWNodePoolNodesRemoveError}): the node then stays, cordoned and pending removal, and is tried again after
 * {@code provisioner.retry-interval} until it goes. A failed removal is what the pool's summary reports as
 * {@code removalError}.
 */
public final class NodeRemovals {

    private final ProvisioningPolicy policy;

    public NodeRemovals(ProvisioningPolicy policy) {
        this.policy = policy;
    }

    /**
     * Removes the node ({@code removed}: the CWNodeRemoval message, {@code event}: the CWNodeDeleted message), or keeps
     * it for a retry when the fleet fails the removal; true when it is gone.
     */
    public boolean remove(WorkingPool pool, PoolNode node, RemovalCause cause, String removed, String event) {
        int attempt = node.retry() == null ? 1 : node.retry().failures() + 1;
        if (!FleetFaultPoints.removalFails(policy, pool, node.name(), attempt)) {
            pool.remove(node, cause, removed);
            pool.poolEvent(
                    CwEvent.CWNodeDeleted,
                    event,
                    pool.uid() + "/" + node.grant().grantId());
            if (cause != RemovalCause.ScaleDown && cause != RemovalCause.PoolDeleted) {
                // A scale-down and a deletion say it once for all their nodes, at the episode's end.
                announce(pool, node, removed);
            }
            return true;
        }
        String error = "Removing node " + node.name() + " failed (attempt " + attempt + "): the fleet did not release "
                + "the machine; retrying in " + policy.faults().retryInterval().toSeconds() + "s.";
        Node leaving = NodeTemplate.leaving(node.node(), cause, removed, false, pool.now());
        pool.updated(
                node.leaving(leaving, cause, node.drainDeadline())
                        .withRetry(new PoolNode.Retry(
                                attempt, pool.now().plus(policy.faults().retryInterval()), error)),
                "RemovalFailed");
        pool.poolEvent(
                CwEvent.CWNodePoolNodesRemoveError,
                error,
                pool.uid() + "/" + node.grant().grantId() + "/remove-" + attempt);
        return false;
    }

    /** Leaving nodes whose failed removal is due are removed again. */
    public void retryDue(WorkingPool pool) {
        for (PoolNode node : pool.snapshot()) {
            if (!node.leaving() || node.retry() == null || node.retry().at().isAfter(pool.now())) {
                continue;
            }
            String removed = removalMessage(node.node());
            remove(
                    pool,
                    node,
                    node.removal(),
                    removed,
                    "Node " + node.name() + " deleted after " + node.retry().failures() + " failed attempt(s): "
                            + removed);
        }
    }

    /**
     * Says on the pool that a node left it outside a scale-down or a deletion ({@code CWNodePoolNodesRemoved}): a
     * remediation, a user's deletion, a spot reclaim, a disabled pool.
     */
    public static void announce(WorkingPool pool, PoolNode node, String why) {
        pool.poolEvent(
                CwEvent.CWNodePoolNodesRemoved,
                "Node " + node.name() + " removed from the NodePool (" + why + "); it has "
                        + pool.nodes().size() + " node(s).",
                pool.uid() + "/" + node.grant().grantId() + "/removed");
    }

    /** Whether a failed removal of this node waits for its retry. */
    public static boolean retrying(PoolNode node) {
        return node.leaving() && node.retry() != null;
    }

    public static String removalMessage(Node node) {
        return node.status().conditions().stream()
                .filter(c -> c.type().equals(Node.CONDITION_REMOVAL))
                .map(c -> c.message())
                .findFirst()
                .orElse("");
    }
}
