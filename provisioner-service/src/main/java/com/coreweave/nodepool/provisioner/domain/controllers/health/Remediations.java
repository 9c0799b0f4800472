package com.coreweave.nodepool.provisioner.domain.controllers.health;

import com.coreweave.nodepool.provisioner.domain.disruption.DisruptionAllowance;
import com.coreweave.nodepool.provisioner.domain.disruption.Drains;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.AlertAction;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionReason;
import com.coreweave.nodepool.provisioner.domain.model.HealthMarks;
import com.coreweave.nodepool.provisioner.domain.model.NodeHealth;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.Remediation;
import com.coreweave.nodepool.provisioner.domain.model.Remediation.Plan;
import com.coreweave.nodepool.provisioner.domain.model.Remediation.Step;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.util.Comparator;

/**
 * Carries out the remediations {@link HealthController} planned, one step per due reconcile. A waiting plan starts when
 * the pool's disruption budgets let one more node out for {@code Unhealthy} ({@link DisruptionAllowance}); a user's
 * deletion, a hold, a DPU component restart and fatal hardware (an alert reference 001 takes out of service
 * immediately) do not wait. A start cordons the node ({@code CWNodeCordoned}), taints it for an alert
 * ({@code CWNodeTainted}) and drains it ({@code CWNodeDraining}, {@code CWDrainNode}). After the drain a reboot takes
 * the node NotReady and back, then uncordons ({@code CWNodeUncordoned}) and untaints it ({@code CWNodeUntainted}); a
 * removal signals the node to prepare for termination ({@code CWNodeMarkedPrepareForTerminate}), gives it
 * {@code prepareForTerminate} ({@code CWNodePreparedForTerminate}) and removes it. With more nodes unhealthy than the
 * pool's {@code maxUnhealthy} ({@link RepairLimit}) no budgeted repair starts ({@code NodeRepairBlocked}). Remediation
 * replaces nodes and never shrinks the pool: the ledger grants the removed node's replacement.
 */
public final class Remediations implements Controller {

    private final ProvisioningPolicy policy;
    private final NodeRemovals removals;
    private final AlertCatalogue catalogue;

    public Remediations(ProvisioningPolicy policy, NodeRemovals removals, AlertCatalogue catalogue) {
        this.policy = policy;
        this.removals = removals;
        this.catalogue = catalogue;
    }

    @Override
    public String name() {
        return "health.remediations";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        for (PoolNode node : pool.snapshot()) {
            if (node.remediation() != null && node.remediation().step() != Step.Waiting) {
                advance(pool, node);
            }
        }
        if (pool.deleting()) {
            return;
        }
        var waiting = pool.nodes().stream()
                .filter(n -> n.remediation() != null && n.remediation().step() == Step.Waiting)
                .sorted(Comparator.comparing((PoolNode n) -> n.remediation().since())
                        .thenComparing(PoolNode::name))
                .toList();
        DisruptionAllowance allowance = DisruptionAllowance.of(pool, policy);
        RepairLimit limit = RepairLimit.of(pool);
        boolean stopped = limit != null && limit.exceeded();
        int held = 0;
        for (PoolNode node : waiting) {
            Plan plan = node.remediation().plan();
            boolean ready = node.phase() == Node.Phase.Registered || plan == Plan.Delete;
            if (!ready || node.leaving() && plan != Plan.Delete) {
                continue;
            }
            if (plan == Plan.Restart) {
                ComponentRestarts.start(pool, node, cause(pool, node));
                continue;
            }
            if (plan.budgeted()) {
                // Fatal hardware is involuntary, as a spot reclaim: no budget holds it, but it is out of service.
                if (plan.removes() && catalogue.immediate(node.health())) {
                    allowance.involuntary();
                } else if (stopped
                        || allowance.decide(DisruptionReason.Unhealthy).allowed() <= 0) {
                    held++;
                    continue;
                } else {
                    allowance.started(DisruptionReason.Unhealthy);
                }
            }
            start(pool, node);
        }
        if (stopped && held > 0) {
            allowance.stopped(DisruptionReason.Unhealthy, CwEvent.NodeRepairBlocked, limit.message(held));
        } else {
            allowance.held(DisruptionReason.Unhealthy, held, "to be drained for a node alert");
        }
    }

    /** Cordons the node, taints it for an alert, and drains it (a hold stops after the taint). */
    private void start(WorkingPool pool, PoolNode node) {
        Remediation remediation = node.remediation();
        String cause = cause(pool, node);
        Node marked = node.node();
        if (!marked.spec().unschedulable()) {
            marked = NodeTemplate.cordoned(marked, true);
            pool.nodeEvent(
                    node.name(),
                    CwEvent.CWNodeCordoned,
                    "Node " + node.name() + " cordoned: " + reason(remediation) + ".",
                    cause);
        }
        boolean tainted = HealthMarks.taint(marked)
                .map(t -> t.value().equals(remediation.why()))
                .orElse(false);
        if (remediation.plan() != Plan.Delete && !tainted) {
            marked = HealthMarks.tainted(marked, remediation.why());
            pool.nodeEvent(
                    node.name(),
                    CwEvent.CWNodeTainted,
                    "Node " + node.name() + " tainted " + Node.TAINT_UNHEALTHY + "=" + remediation.why()
                            + ":NoSchedule.",
                    cause);
        }
        if (remediation.plan() == Plan.Hold) {
            pool.updated(withRemediation(node.withNode(marked), remediation.at(Step.Held, null)), "Cordoned");
            return;
        }
        if (node.phase() != Node.Phase.Registered) {
            // A node that never joined the cluster has no workload to drain.
            terminating(pool, withRemediation(node.withNode(marked), remediation.at(Step.Draining, null)));
            return;
        }
        boolean interrupted = remediation.plan().removes() && catalogue.interrupts(node.health());
        Duration grace = interrupted ? Duration.ZERO : Drains.grace(policy, node);
        PoolNode draining = remediation.plan().removes()
                ? node.leaving(
                        NodeTemplate.leaving(
                                marked, cause(remediation.plan()), reason(remediation) + ".", true, pool.now()),
                        cause(remediation.plan()),
                        pool.now().plus(grace))
                : node.draining(NodeTemplate.draining(marked), pool.now().plus(grace));
        draining = withRemediation(draining, remediation.at(Step.Draining, null));
        pool.updated(draining, "Draining");
        pool.nodeEvent(
                node.name(),
                CwEvent.CWNodeDraining,
                "Node " + node.name() + " draining: " + reason(remediation)
                        + (interrupted
                                ? "; its workload is interrupted without its grace period."
                                : "; workloads get " + grace.toSeconds() + "s to finish."),
                cause);
        Drains.announce(pool, node.name(), reason(remediation), cause);
        Drains.reportBlocked(pool, draining, cause);
        advance(pool, draining);
    }

    /** The next step of a remediation under way, when its time has come. */
    private void advance(WorkingPool pool, PoolNode node) {
        Remediation remediation = node.remediation();
        switch (remediation.step()) {
            case Restarting -> ComponentRestarts.advance(pool, node, cause(pool, node));
            case Held -> {
                if (node.health().action() == AlertAction.None) {
                    backInService(pool, node, "its alerts ended");
                }
            }
            case Draining -> {
                if (Drains.over(node, pool.now())) {
                    Drains.reportEnd(pool, node, cause(pool, node));
                    if (remediation.plan() == Plan.Reboot) {
                        reboot(pool, node);
                    } else {
                        terminating(pool, node);
                    }
                }
            }
            case Rebooting -> {
                if (node.phase() == Node.Phase.Registered) {
                    if (remediation.plan() == Plan.Reboot) {
                        backInService(pool, node, "it rebooted");
                    } else {
                        terminating(pool, node);
                    }
                }
            }
            case Terminating -> {
                if (remediation.deadline() != null && !remediation.deadline().isAfter(pool.now())) {
                    pool.nodeEvent(
                            node.name(),
                            CwEvent.CWNodePreparedForTerminate,
                            "Node " + node.name() + " is prepared for termination.",
                            cause(pool, node));
                    PoolNode prepared = withRemediation(node, remediation.at(Step.Terminating, null));
                    String removed = reason(remediation) + ".";
                    removals.remove(
                            pool,
                            prepared,
                            cause(remediation.plan()),
                            removed,
                            "Node " + node.name() + " deleted: " + reason(remediation) + ".");
                }
            }
            case Waiting -> {}
        }
    }

    /**
     * A reboot in place: NotReady for the boot time, then the boot registers it again (the failure path of any boot).
     */
    private void reboot(WorkingPool pool, PoolNode node) {
        Node rebooted = NodeTemplate.rebooting(node.node(), node.node().status().nodeProfile(), pool.now());
        pool.updated(
                withRemediation(
                        node.booting(rebooted, pool.now().plus(policy.bootTime())),
                        node.remediation().at(Step.Rebooting, null)),
                "Rebooting");
    }

    /** Signals the node to prepare for termination; it is removed once its time to prepare is over. */
    private void terminating(WorkingPool pool, PoolNode node) {
        Remediation remediation = node.remediation();
        PoolNode leaving = node.leaving()
                ? node
                : node.leaving(
                        NodeTemplate.leaving(
                                node.node(), cause(remediation.plan()), reason(remediation) + ".", false, pool.now()),
                        cause(remediation.plan()),
                        null);
        PoolNode marked = withRemediation(
                leaving,
                remediation.at(Step.Terminating, pool.now().plus(policy.repair().prepareForTerminate())));
        pool.updated(marked, "PrepareForTerminate");
        pool.nodeEvent(
                node.name(),
                CwEvent.CWNodeMarkedPrepareForTerminate,
                "Node " + node.name() + " signalled to "
                        + "prepare for termination: " + reason(remediation) + "; it is removed in "
                        + policy.repair().prepareForTerminate().toSeconds() + "s.",
                cause(pool, node));
        advance(pool, marked);
    }

    /** Uncordoned and untainted; the alerts a reboot answered are over. */
    private static void backInService(WorkingPool pool, PoolNode node, String why) {
        backInService(pool, node, why, cause(pool, node));
    }

    private static void backInService(WorkingPool pool, PoolNode node, String why, String cause) {
        NodeHealth health = node.health();
        if (node.remediation() != null && node.remediation().plan() == Plan.Reboot) {
            health = health.withAlerts(health.alerts().stream()
                    // A reboot restarts the DPU's components too.
                    .filter(a -> a.action() != AlertAction.Reboot && a.action() != AlertAction.Restart)
                    .toList());
        }
        Node released = HealthMarks.withAlerts(
                HealthMarks.tainted(NodeTemplate.cordoned(node.node(), false), null), health.alerts(), pool.now());
        pool.updated(node.withNode(released).withHealth(health.withRemediation(null)), "Uncordoned");
        pool.nodeEvent(
                node.name(), CwEvent.CWNodeUncordoned, "Node " + node.name() + " uncordoned: " + why + ".", cause);
        pool.nodeEvent(node.name(), CwEvent.CWNodeUntainted, "Node " + node.name() + " untainted: " + why + ".", cause);
    }

    private static PoolNode withRemediation(PoolNode node, Remediation next) {
        return node.withHealth(node.health().withRemediation(next));
    }

    private static RemovalCause cause(Plan plan) {
        return switch (plan) {
            case Replace -> RemovalCause.Replaced;
            case Triage -> RemovalCause.Triaged;
            default -> RemovalCause.Deleted;
        };
    }

    private static String reason(Remediation remediation) {
        return switch (remediation.plan()) {
            case Delete -> "deleted at the user's request";
            case Restart -> "restarting a DPU component for alert " + remediation.why();
            case Hold ->
                "unhealthy (" + remediation.why() + "); eviction of unhealthy nodes is disabled for the NodePool";
            case Reboot -> "rebooting for alert " + remediation.why();
            case Replace -> "taken out of service for alert " + remediation.why();
            case Triage -> "taken out of service for triage of alert " + remediation.why();
        };
    }

    /** One remediation's events share a cause: the node's grant and when the remediation started. */
    private static String cause(WorkingPool pool, PoolNode node) {
        return pool.uid() + "/" + node.grant().grantId() + "/remediation-"
                + node.remediation().since().toEpochMilli();
    }
}
