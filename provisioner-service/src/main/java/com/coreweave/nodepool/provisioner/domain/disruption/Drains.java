package com.coreweave.nodepool.provisioner.domain.disruption;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;

/**
 * How a drain goes, whoever drains the node (a scale-down, a deletion, a remediation): it lasts until the workload
 * reports idle or its grace period ends, when its pods are deleted ungracefully ({@code CWNodeDrainingForceDelete}). A
 * workload whose disruption budget allows no eviction blocks the drain ({@code CWNodeDrainingPDBViolation}) until it
 * reports otherwise or the grace period ends.
 */
public final class Drains {

    private Drains() {}

    /** The workload's last reported grace period, or the default one. */
    public static Duration grace(ProvisioningPolicy policy, PoolNode node) {
        return node.graceSeconds() == null ? policy.drainGrace() : Duration.ofSeconds(node.graceSeconds());
    }

    /** Whether the drain is over: the workload is idle, or its grace period ended. */
    public static boolean over(PoolNode node, Instant now) {
        return !node.active() || overdue(node, now);
    }

    private static boolean overdue(PoolNode node, Instant now) {
        return node.drainDeadline() != null && !node.drainDeadline().isAfter(now);
    }

    /**
     * Cordons {@code node} and drains it to leave the pool for {@code cause} ({@code CWNodeCordoned},
     * {@code CWNodeDraining}, {@code CWDrainNode}, their ids from {@code eventCause}): it is removed when its workload
     * is idle or its grace period ends.
     */
    public static void leave(
            WorkingPool pool,
            ProvisioningPolicy policy,
            PoolNode node,
            RemovalCause cause,
            String why,
            String eventCause) {
        Duration grace = grace(policy, node);
        Node draining = NodeTemplate.leaving(node.node(), cause, "Draining: " + why + ".", true, pool.now());
        PoolNode leaving = node.leaving(draining, cause, pool.now().plus(grace));
        pool.updated(leaving, "Draining");
        pool.nodeEvent(
                node.name(), CwEvent.CWNodeCordoned, "Node " + node.name() + " cordoned: " + why + ".", eventCause);
        pool.nodeEvent(
                node.name(),
                CwEvent.CWNodeDraining,
                "Node " + node.name() + " draining; it is removed when its workload is idle or after "
                        + grace.toSeconds() + "s.",
                eventCause);
        announce(pool, node.name(), why, eventCause);
        reportBlocked(pool, leaving, eventCause);
    }

    /** Says on the pool that one of its nodes is being drained ({@code CWDrainNode}), whoever drains it. */
    public static void announce(WorkingPool pool, String node, String why, String cause) {
        pool.poolEvent(CwEvent.CWDrainNode, "Draining node " + node + ": " + why + ".", cause);
    }

    /** Says that the drain now starting (or going on) is blocked by the workload's disruption budget, if it is. */
    public static void reportBlocked(WorkingPool pool, PoolNode node, String cause) {
        if (node.drainBlocked() && node.active()) {
            pool.nodeEvent(
                    node.name(),
                    CwEvent.CWNodeDrainingPDBViolation,
                    "Node " + node.name() + " is being drained "
                            + "but its pods cannot be evicted: their PodDisruptionBudget allows no disruption now. They are deleted "
                            + "when the grace period ends"
                            + (node.drainDeadline() == null ? "." : " at " + node.drainDeadline() + "."),
                    cause + "/pdb");
        }
    }

    /** Says, when the drain ended with the workload still running, that its pods were deleted ungracefully. */
    public static void reportEnd(WorkingPool pool, PoolNode node, String cause) {
        if (node.active()) {
            pool.nodeEvent(
                    node.name(),
                    CwEvent.CWNodeDrainingForceDelete,
                    "Node " + node.name() + " drained: the grace "
                            + "period ended with the workload still running"
                            + (node.drainBlocked() ? " (evictions blocked by its " + "PodDisruptionBudget)" : "")
                            + "; its pods were deleted ungracefully.",
                    cause + "/force-delete");
        }
    }
}
