package com.coreweave.nodepool.provisioner.domain.controllers.lifecycle;

import com.coreweave.nodepool.provisioner.domain.disruption.DoNotDisrupt;
import com.coreweave.nodepool.provisioner.domain.disruption.Drains;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaultPoints;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;

/**
 * The boots of a pool's nodes: a boot whose time is up registers, or fails and boots again (a pool whose boots keep
 * failing is disabled and its nodes leave). Platform teams' busy/idle reports set {@code CWActive}, which drains and
 * scale-down read. The rest of a node's life is beside it: {@link DrainCompletions}, {@link PoolMetadata},
 * {@link RemovalRetries}.
 */
public final class LifecycleController implements Controller {

    private final ProvisioningPolicy policy;

    public LifecycleController(ProvisioningPolicy policy) {
        this.policy = policy;
    }

    @Override
    public String name() {
        return "lifecycle.boots";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        finishBoots(pool);
    }

    /** Boots whose time is up register, or fail and boot again, or, once the pool is disabled, leave. */
    void finishBoots(WorkingPool pool) {
        String profile = pool.activeProfile();
        for (PoolNode node : pool.snapshot()) {
            if (node.phase() != Node.Phase.Booting
                    || node.bootDeadline() == null
                    || node.bootDeadline().isAfter(pool.now())) {
                continue;
            }
            int attempt = node.node().status().bootAttempt();
            String cause = pool.uid() + "/" + node.grant().grantId() + "/" + attempt;
            String failure = FleetFaultPoints.bootFailure(policy, pool, node.name(), attempt);
            if (failure == null) {
                registered(pool, node, cause);
                continue;
            }
            int streak = pool.countBootFailure();
            Node failed = NodeTemplate.failed(node.node(), failure, pool.now());
            pool.bootFailed(node, failed, failure);
            pool.nodeEvent(node.name(), CwEvent.CWNodeRegistrationFailed, failure, cause);
            if (!pool.disabled() && streak >= policy.maxConsecutiveBootFailures()) {
                pool.disable(streak + " boot failures in a row with node configuration "
                        + node.node().status().nodeProfile() + "; contact support. Last: " + failure);
                pool.changeConfigs(
                        pool.configs().withDisabled(node.node().status().nodeProfile()));
                pool.poolEvent(
                        CwEvent.CWNodePoolDisabled,
                        "NodePool disabled: " + pool.disabledMessage(),
                        pool.uid() + "/generation-" + pool.accepted().generation());
            }
            if (pool.disabled()) {
                // A node that never joined the cluster leaves at once: there is nothing of it to remove.
                String why = "Removed after repeated boot failures.";
                pool.remove(node.withNode(failed), RemovalCause.BootFailed, why);
                pool.poolEvent(
                        CwEvent.CWNodeDeleted,
                        "Node " + node.name() + " deleted: the NodePool is disabled after " + "repeated boot failures.",
                        pool.uid() + "/" + node.grant().grantId());
                NodeRemovals.announce(pool, node, why);
            } else {
                pool.updated(
                        node.booting(
                                NodeTemplate.rebooting(failed, profile, pool.now()),
                                pool.now().plus(policy.bootTime())),
                        "BootRetried");
            }
        }
    }

    private static void registered(WorkingPool pool, PoolNode node, String cause) {
        pool.resetBootFailures();
        Node registered = NodeTemplate.registered(node.node(), pool.now());
        if (node.reconfigure() == PoolNode.Reconfigure.Rebooting) {
            pool.registered(node.registered(registered).withReconfigure(null));
            pool.nodeEvent(
                    node.name(),
                    CwEvent.CWReconfigureRebooted,
                    "Node " + node.name() + " reconfigure " + "rebooted into node configuration "
                            + node.node().status().nodeProfile() + ".",
                    cause);
            return;
        }
        pool.registered(node.registered(registered));
        pool.nodeEvent(
                node.name(), CwEvent.CWNodeRegistered, "Node " + node.name() + " registered in the cluster.", cause);
    }

    /**
     * A node reported busy or idle: {@code CWActive} changes once, and the workload's grace period and disruption
     * budget are kept. A budget that now blocks the node's drain says so.
     */
    public static void onActivity(WorkingPool pool, NodeActivityReported report) {
        PoolNode node = pool.node(report.node());
        if (node == null) {
            return;
        }
        PoolNode reported = node.withWorkload(report.terminationGracePeriodSeconds(), report.disruptionsAllowed());
        boolean unchanged =
                node.active() == report.active() && DoNotDisrupt.workloadHolds(node.node()) == report.holdsNode();
        if (unchanged) {
            // A changed budget of a busy node is published: an eviction is checked against it.
            if (reported.published().equals(node.published())) {
                pool.keep(reported);
            } else {
                pool.updated(reported, "Workload");
            }
        } else {
            reported = reported.withNode(
                    NodeTemplate.withActivity(node.node(), report.active(), report.holdsNode(), pool.now()));
            pool.updated(reported, report.active() ? NodeTemplate.ACTIVE : NodeTemplate.IDLE);
        }
        if (reported.phase() == Node.Phase.Draining && reported.drainBlocked() && !node.drainBlocked()) {
            Drains.reportBlocked(
                    pool,
                    reported,
                    pool.uid() + "/" + node.grant().grantId() + "/drain-"
                            + (node.drainDeadline() == null
                                    ? 0
                                    : node.drainDeadline().toEpochMilli()));
        }
    }
}
