package com.coreweave.nodepool.provisioner.domain.controllers.lifecycle;

import com.coreweave.nodepool.provisioner.domain.disruption.Drains;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.Node;

/** The end of the drains that scale-downs, deletions and expiry start: the drained node leaves the pool. */
public final class DrainCompletions implements Controller {

    private final NodeRemovals removals;

    public DrainCompletions(NodeRemovals removals) {
        this.removals = removals;
    }

    @Override
    public String name() {
        return "lifecycle.drains";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        finishDrains(pool);
    }

    /**
     * A node drained for a scale-down, a deletion or its expiry leaves once its workload is idle, or when its grace
     * period is over, whichever comes first.
     */
    void finishDrains(WorkingPool pool) {
        for (PoolNode node : pool.snapshot()) {
            boolean drainedHere = node.removal() == RemovalCause.ScaleDown
                    || node.removal() == RemovalCause.PoolDeleted
                    || node.removal() == RemovalCause.Expired;
            if (!drainedHere
                    || node.phase() != Node.Phase.Draining
                    || NodeRemovals.retrying(node)
                    || !Drains.over(node, pool.now())) {
                continue;
            }
            String why = node.active() ? "its grace period ended" : "its workload finished";
            Drains.reportEnd(pool, node, pool.uid() + "/" + node.grant().grantId());
            removals.remove(
                    pool,
                    node,
                    node.removal(),
                    "Drained: " + why + ".",
                    "Node " + node.name() + " deleted after draining: " + why + ".");
        }
    }
}
