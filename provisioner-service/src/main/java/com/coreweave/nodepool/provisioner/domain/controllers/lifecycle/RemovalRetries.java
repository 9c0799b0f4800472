package com.coreweave.nodepool.provisioner.domain.controllers.lifecycle;

import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;

/** Leaving nodes whose failed removal is due are removed again ({@link NodeRemovals#retryDue}). */
public final class RemovalRetries implements Controller {

    private final NodeRemovals removals;

    public RemovalRetries(NodeRemovals removals) {
        this.removals = removals;
    }

    @Override
    public String name() {
        return "lifecycle.removal-retries";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        removals.retryDue(pool);
    }
}
