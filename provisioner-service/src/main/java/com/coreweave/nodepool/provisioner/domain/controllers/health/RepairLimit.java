package com.coreweave.nodepool.provisioner.domain.controllers.health;

import com.coreweave.nodepool.provisioner.domain.disruption.NodeShare;
import com.coreweave.nodepool.provisioner.domain.model.AlertAction;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.Lifecycle;

/**
 * A pool's {@code lifecycle.maxUnhealthy} (Cluster API's name) as it stands now: with more of its nodes unhealthy than
 * that, automated repair stops, since a storm of alerts is more likely the monitoring's fault or the site's than the
 * nodes', and repairing through it sends good machines to maintenance. A node is unhealthy while an alert of it calls
 * for an action. A percentage is of the pool's nodes, rounded down as Cluster API rounds it.
 */
record RepairLimit(String declared, int max, int unhealthy, int nodes) {

    /** The pool's limit now; null when it declares none (or one the API would not have let through). */
    static RepairLimit of(WorkingPool pool) {
        Lifecycle lifecycle = pool.spec().lifecycle();
        String declared = lifecycle == null ? null : lifecycle.maxUnhealthy();
        if (!NodeShare.valid(declared)) {
            return null;
        }
        int nodes = pool.nodes().size();
        int unhealthy =
                (int) pool.nodes().stream().filter(RepairLimit::unhealthy).count();
        int max = NodeShare.of(declared, nodes, false);
        return new RepairLimit(declared, max, unhealthy, nodes);
    }

    private static boolean unhealthy(PoolNode node) {
        return node.health() != null && node.health().action() != AlertAction.None;
    }

    boolean exceeded() {
        return unhealthy > max;
    }

    /** What the pool's status and its {@code NodeRepairBlocked} event say while repair is stopped. */
    String message(int waiting) {
        return "Node repair blocked: " + unhealthy + " of " + nodes + " nodes unhealthy, more than maxUnhealthy \""
                + declared + "\"" + (declared.endsWith("%") ? " (" + max + ")" : "") + "; " + waiting
                + " node(s) wait, and repair resumes when " + max + " or fewer are unhealthy.";
    }
}
