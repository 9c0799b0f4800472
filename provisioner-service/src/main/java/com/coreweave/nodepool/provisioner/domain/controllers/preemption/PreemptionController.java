package com.coreweave.nodepool.provisioner.domain.controllers.preemption;

import com.coreweave.nodepool.provisioner.domain.disruption.Drains;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;

/**
 * The preemption-service's timeline applied to a spot node (reference 004): pending cordons it and labels it
 * {@code pending-preemption}, in progress drains it and labels it {@code evicted-at}, preempted removes it and releases
 * its grant. The timeline, not a timer here, decides when each step comes; a repeated step changes nothing.
 */
public final class PreemptionController {

    private PreemptionController() {}

    public static void onPreemption(WorkingPool pool, PreemptionFact fact) {
        PoolNode node = pool.node(fact.node());
        if (!pool.uid().equals(fact.pool().uid()) || node == null) {
            return;
        }
        var labels = node.node().metadata().labels();
        switch (fact) {
            case PreemptionFact.PreemptionPending pending -> {
                if (labels.containsKey(Node.LABEL_PENDING_PREEMPTION)) {
                    return;
                }
                Node cordoned = NodeTemplate.cordonedWithLabel(node.node(), Node.LABEL_PENDING_PREEMPTION, "true");
                pool.updated(leaving(node, cordoned, false, pool), "PreemptionPending");
                pool.nodeEvent(
                        node.name(),
                        CwEvent.CWNodeCordoned,
                        "Node " + node.name() + " cordoned: spot preemption pending.",
                        pending.reclaimId());
            }
            case PreemptionFact.PreemptionInProgress progress -> {
                if (labels.containsKey(Node.LABEL_EVICTED_AT)) {
                    return;
                }
                // Label values cannot hold ':', so the drain start is written in epoch seconds.
                Node evicted = NodeTemplate.cordonedWithLabel(
                        node.node(),
                        Node.LABEL_EVICTED_AT,
                        Long.toString(progress.evictedAt().getEpochSecond()));
                pool.updated(leaving(node, evicted, true, pool), "PreemptionInProgress");
                pool.nodeEvent(
                        node.name(),
                        CwEvent.CWNodeDraining,
                        "Node " + node.name()
                                + " draining for spot preemption; workloads get " + progress.gracePeriodSeconds()
                                + "s to terminate.",
                        progress.reclaimId());
                // One reclaim can take several nodes of the pool: each drain is its own pool event.
                Drains.announce(pool, node.name(), "spot preemption", progress.reclaimId() + "/" + node.name());
            }
            case PreemptionFact.NodePreempted preempted -> {
                String why = "Removed for spot preemption (" + preempted.cause() + ").";
                pool.remove(node, RemovalCause.Preempted, why);
                pool.poolEvent(
                        CwEvent.CWNodeDeleted,
                        "Node " + node.name() + " deleted for spot preemption.",
                        preempted.reclaimId() + "/" + node.name());
                NodeRemovals.announce(pool, node, why);
            }
        }
    }

    /**
     * A node marked for preemption is leaving; one already leaving for another reason keeps that reason (and its own
     * drain deadline), since it goes either way.
     */
    private static PoolNode leaving(PoolNode node, Node marked, boolean draining, WorkingPool pool) {
        RemovalCause cause = node.leaving() ? node.removal() : RemovalCause.Preempted;
        String message = node.leaving() ? NodeRemovals.removalMessage(node.node()) : "Spot node is being preempted.";
        return node.leaving(
                NodeTemplate.leaving(marked, cause, message, draining, pool.now()), cause, node.drainDeadline());
    }
}
