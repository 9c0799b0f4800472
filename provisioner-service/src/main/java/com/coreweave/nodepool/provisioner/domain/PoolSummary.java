package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.provisioner.domain.controllers.configuration.ReconfigureReboots;
import com.coreweave.nodepool.provisioner.domain.disruption.DisruptionAllowance;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionLog;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfig;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.Verdicts;
import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.PendingDemand;
import com.coreweave.nodepool.schema.resource.PendingNodeConfiguration;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * The pool's {@code NodePoolReconciled} after a reconcile: the counts, the node configurations as the status shows
 * them, whether a deleting pool has no node left, the fleet failures being retried, and quota's and capacity's
 * verdicts. It is sent only when it differs from the last one sent, and not before capacity decided for the pool.
 */
final class PoolSummary implements Controller {

    @Override
    public String name() {
        return "summary";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        summarize(pool);
    }

    static void summarize(WorkingPool pool) {
        if (awaitsCapacity(pool)) {
            // Until capacity has decided for this incarnation, a new pool has no node and nothing to report: its first
            // summary comes with the reconcile of that decision (a pool being deleted says so at once).
            return;
        }
        int current = 0;
        int inProgress = 0;
        int removing = 0;
        for (PoolNode node : pool.nodes()) {
            switch (node.phase()) {
                case Booting -> inProgress++;
                case Registered, Draining -> current++;
                default -> {}
            }
            if (node.leaving()) {
                removing++;
            }
        }
        NodeConfigState configs = pool.configs();
        NodePoolReconciled next = new NodePoolReconciled(
                pool.ref(),
                pool.desired(),
                current,
                inProgress,
                removing,
                pool.activeProfile(),
                pendingView(configs),
                revisionsView(configs, pool.nodes()),
                pool.deleting(),
                pool.deleting() && pool.nodes().isEmpty(),
                pool.disabled(),
                pool.disabledMessage(),
                pool.now(),
                error(pool.nodes(), NodeRemovals::retrying),
                pool.deliveryError(),
                error(pool.nodes(), ReconfigureReboots::retrying),
                verdicts(pool),
                disruption(pool),
                pendingDemand(pool));
        NodePoolReconciled last = pool.lastReconciled();
        if (last == null || !next.equals(last.at(pool.now()))) {
            pool.summary(next);
        }
    }

    /**
     * How many nodes are out of service for a disruption, as the budgets count them, and what they hold back; null when
     * neither, so a quiet pool's status shows nothing of it.
     */
    private static DisruptionStatus disruption(WorkingPool pool) {
        DisruptionLog log = pool.disruptions();
        int out = log.replacing();
        for (PoolNode node : pool.nodes()) {
            if (DisruptionAllowance.outOfService(node)) {
                out++;
            }
        }
        List<DisruptionStatus.Blocked> blocked = log.held().entrySet().stream()
                .map(e -> new DisruptionStatus.Blocked(e.getKey().name(), e.getValue()))
                .toList();
        return out == 0 && blocked.isEmpty() ? null : new DisruptionStatus(out, blocked);
    }

    private static boolean awaitsCapacity(WorkingPool pool) {
        return !pool.deleting() && pool.nodes().isEmpty() && decidedForThisIncarnation(pool) == null;
    }

    /** Quota's and capacity's verdicts on this incarnation, as capacity's last decision for it carries them. */
    private static Verdicts verdicts(WorkingPool pool) {
        CapacityChecked capacity = decidedForThisIncarnation(pool);
        return capacity == null ? null : Verdicts.of(capacity);
    }

    /** The demand the planner gives the pool, for its status; null when there is none. */
    private static PendingDemand pendingDemand(WorkingPool pool) {
        PoolDemand demand = pool.demand().demand();
        return demand == null || demand.nodes() == 0 && demand.workloads() == 0
                ? null
                : new PendingDemand(demand.nodes(), demand.workloads());
    }

    /** Capacity's last decision, if it was about this incarnation of the pool. */
    private static CapacityChecked decidedForThisIncarnation(WorkingPool pool) {
        CapacityChecked capacity = pool.capacity();
        return capacity != null && capacity.pool().uid().equals(pool.uid()) ? capacity : null;
    }

    /** The error of the first node whose failed step waits for its retry, or null. */
    private static String error(Collection<PoolNode> nodes, Predicate<PoolNode> retrying) {
        return nodes.stream()
                .filter(retrying)
                .map(n -> n.retry().error())
                .findFirst()
                .orElse(null);
    }

    private static PendingNodeConfiguration pendingView(NodeConfigState state) {
        NodeConfig pending = state.pending();
        return pending == null
                ? null
                : new PendingNodeConfiguration(pending.createdAt(), pending.nodeProfile(), pending.summary());
    }

    /** The revisions as the status shows them, with the nodes booted into each. */
    private static List<NodeConfigurationRevision> revisionsView(NodeConfigState state, Collection<PoolNode> nodes) {
        return state.revisions().stream()
                .map(r -> new NodeConfigurationRevision(
                        (int) nodes.stream()
                                .filter(n -> n.phase() == Node.Phase.Registered || n.phase() == Node.Phase.Draining)
                                .filter(n -> r.config()
                                        .nodeProfile()
                                        .equals(n.node().status().nodeProfile()))
                                .count(),
                        r.config().createdAt(),
                        r.config().nodeProfile(),
                        r.disabled(),
                        r.config().summary()))
                .toList();
    }
}
