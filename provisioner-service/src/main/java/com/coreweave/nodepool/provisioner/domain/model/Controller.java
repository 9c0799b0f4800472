package com.coreweave.nodepool.provisioner.domain.model;

/**
 * One concern of a pool's reconcile: it looks at the working pool and changes it through its methods. The reconciler
 * runs its controllers in one fixed order; each controller's {@link #name} says which of them a failure came from.
 */
public interface Controller {

    /** A short stable name, {@code <folder>.<concern>}, used in what the reconciler reports about it. */
    String name();

    void reconcile(WorkingPool pool);
}
