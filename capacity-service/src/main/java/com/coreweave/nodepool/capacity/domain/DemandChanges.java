package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import java.util.List;

/**
 * What a pool's inputs change in its ledger: its demand as quota decided it, forgetting it, and the release of one of
 * its grants. A release counts only if it names the machine, pool incarnation and grant id that hold.
 */
final class DemandChanges {

    /** The release cause of a node a user deleted: the pool gets another machine when one is free. */
    static final String DELETED = "Deleted";

    private DemandChanges() {}

    static void onDemand(Evaluation evaluation, String pool, QuotaChecked checked) {
        Ledger ledger = evaluation.ledger;
        PoolRef ref = checked.pool();
        PoolDemand held = ledger.pool(pool);
        if (held != null
                && held.ref().uid().equals(ref.uid())
                && ref.generation() < held.ref().generation()) {
            return;
        }
        if (held != null && !held.ref().uid().equals(ref.uid())) {
            // The pool was deleted and created again under the same name: the old incarnation's grants are void.
            ended(evaluation.changes, evaluation.changes.endAll(pool), false);
            held = null;
        }
        int demand = Math.max(0, checked.admittedNodes());
        int previous = held == null ? 0 : held.demand();
        // A change of compute class needs nothing more: what a pool holds counts as spot exactly while it is spot.
        evaluation.changes.putPool(pool, (held == null ? PoolDemand.of(ref, demand) : held).decided(checked, demand));
        if (held == null || previous != demand) {
            evaluation.previousDemand.put(pool, previous);
        }
    }

    static void onForget(Evaluation evaluation, LedgerInput.Forget forget) {
        PoolDemand held = evaluation.ledger.pool(forget.pool());
        if (held == null
                || (forget.poolUid() != null
                        && !forget.poolUid().equals(held.ref().uid()))) {
            return;
        }
        ended(evaluation.changes, evaluation.changes.endAll(forget.pool()), false);
        evaluation.changes.putPool(forget.pool(), null);
        evaluation.forgotten.add(forget.pool());
    }

    static void onRelease(Evaluation evaluation, NodeFact.NodeRemoved removed) {
        Ledger ledger = evaluation.ledger;
        Grant grant = removed.grant();
        String pool = removed.pool().key().toString();
        PoolDemand holder = ledger.pool(pool);
        if (grant == null
                || holder == null
                || !holder.ref().uid().equals(removed.pool().uid())) {
            return;
        }
        Holding held = ledger.holding(pool, grant.grantId());
        int machine = ledger.indexOf(grant.machine());
        if (held == null || held.machine() != machine) {
            return;
        }
        evaluation.changes.endGrant(pool, held.grantId());
        ended(evaluation.changes, List.of(held), removed.outOfService());
        if (DELETED.equals(removed.cause())) {
            evaluation.releasedBy.put(pool, machine);
        }
    }

    /**
     * After grants ended: a machine out of service, or one an operator asked back (the capacity is needed elsewhere),
     * goes to maintenance; every other one is free for the queue.
     */
    private static void ended(LedgerChanges changes, List<Holding> released, boolean outOfService) {
        for (Holding h : released) {
            if (outOfService || h.reclaim() == Machine.Reclaim.OPERATOR) {
                changes.setOutOfService(h.machine(), Machine.Status.MAINTENANCE);
            }
        }
    }
}
