package com.coreweave.nodepool.provisioner.domain.disruption;

import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;

/**
 * Starts a reconcile's disruption budgets afresh ({@link DisruptionAllowance#begin}): starts no window reaches are
 * forgotten, and the wake-up is set again by what is still held back.
 */
public final class DisruptionWindows implements Controller {

    @Override
    public String name() {
        return "disruption.windows";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        DisruptionAllowance.begin(pool);
    }
}
