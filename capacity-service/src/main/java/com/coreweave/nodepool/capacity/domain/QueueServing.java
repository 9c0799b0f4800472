package com.coreweave.nodepool.capacity.domain;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Serving the queue after every input: free machines go to {@code default} pools in the order they started waiting,
 * then to {@code spot} pools in the same order. A pool that released a machine for a deleted node gets it back only
 * when no other machine is free.
 */
final class QueueServing {

    private QueueServing() {}

    /** Hands free machines to waiting pools: default before spot, each in the order they started waiting. */
    static void serve(Evaluation evaluation) {
        Ledger ledger = evaluation.ledger;
        refreshTickets(evaluation);
        for (PoolDemand waiting : ledger.queue()) {
            String key = waiting.ref().key().toString();
            int wanted = ledger.queued(key);
            Integer unless = evaluation.releasedBy.get(key);
            List<Integer> chosen = new ArrayList<>();
            for (int i = ledger.nextFree(1); i >= 0 && chosen.size() < wanted; i = ledger.nextFree(i + 1)) {
                if (unless == null || i != unless) {
                    chosen.add(i);
                }
            }
            if (chosen.size() < wanted && unless != null && ledger.status(unless) == Machine.Status.FREE) {
                chosen.add(unless);
            }
            if (!chosen.isEmpty()) {
                LedgerChanges changes = evaluation.changes;
                chosen.forEach(i -> changes.grant(key, new Holding(i, changes.nextGrantId(), evaluation.now, null)));
                evaluation.grantedNow.merge(key, chosen.size(), Integer::sum);
            }
            if (chosen.size() < wanted) {
                break;
            }
        }
        refreshTickets(evaluation);
    }

    /**
     * A pool that starts waiting takes the next ticket; a pool that waits no more gives its ticket up. Only a pool this
     * input changed can start or stop waiting.
     */
    private static void refreshTickets(Evaluation evaluation) {
        Ledger ledger = evaluation.ledger;
        LedgerChanges changes = evaluation.changes;
        for (String key : new TreeSet<>(changes.touched())) {
            PoolDemand pool = ledger.pool(key);
            if (pool == null) {
                continue;
            }
            boolean waits = ledger.queued(key) > 0;
            if (waits && pool.ticket() == null) {
                changes.putPool(key, pool.waiting(changes.nextTicket(), evaluation.now));
            } else if (!waits && pool.ticket() != null) {
                changes.putPool(key, pool.waiting(null, null));
            }
        }
    }
}
