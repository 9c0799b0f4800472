package com.coreweave.nodepool.provisioner.domain.controllers.health;

import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import com.coreweave.nodepool.provisioner.domain.model.AlertAction;
import com.coreweave.nodepool.provisioner.domain.model.HealthMarks;
import com.coreweave.nodepool.provisioner.domain.model.NodeHealth;
import com.coreweave.nodepool.provisioner.domain.model.NodeHealth.Alert;
import com.coreweave.nodepool.provisioner.domain.model.NodeHealth.Raise;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.Remediation;
import com.coreweave.nodepool.provisioner.domain.model.Remediation.Plan;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Node health: monitoring's alerts ({@code node-alert-raised}) and users' node deletions decide what is to be done
 * about a node; {@link Remediations} then does it within the pool's repair budget. A raised alert is looked up in the
 * catalogue (an unknown one is recorded under {@code UnknownAlert} and never acted on) and shown as a node condition;
 * the node's plan is the strongest action of its active alerts. A Reboot alert raised {@code flapThreshold} times
 * within {@code flapWindow} is escalated: the node is taken out of service instead of being rebooted again. With
 * {@code lifecycle.disableUnhealthyNodeEviction} an unhealthy node is only held (cordoned, tainted).
 */
public final class HealthController {

    private final RepairPolicy repair;
    private final AlertCatalogue catalogue;

    public HealthController(RepairPolicy repair, AlertCatalogue catalogue) {
        this.repair = repair;
        this.catalogue = catalogue;
    }

    /**
     * A raised or resolved alert; a redelivered one, a raise of an active alert or a resolve of none changes nothing.
     */
    public void onAlert(WorkingPool pool, CloudEvent<NodeAlert> event) {
        PoolNode node = pool.node(event.data().node());
        if (!pool.firstHandling(event.id()) || node == null) {
            return;
        }
        NodeHealth health = node.health() == null ? NodeHealth.NONE : node.health();
        String name = event.data().alert();
        boolean raised = NodeAlert.RAISED.equals(event.type());
        boolean active = health.alerts().stream().anyMatch(a -> a.name().equals(name));
        if (raised == active) {
            return;
        }
        if (raised) {
            Instant at = event.time() == null ? pool.now() : event.time();
            List<Raise> raises = new ArrayList<>(health.raises().stream()
                    .filter(r -> r.at().isAfter(at.minus(repair.flapWindow())))
                    .toList());
            raises.add(new Raise(name, at));
            List<Alert> alerts = new ArrayList<>(health.alerts());
            alerts.add(alert(
                    catalogue.entry(name),
                    event.data().details(),
                    at,
                    raises.stream().filter(r -> r.alert().equals(name)).count()));
            health = health.withRaises(raises).withAlerts(alerts);
        } else {
            health = health.withAlerts(
                    health.alerts().stream().filter(a -> !a.name().equals(name)).toList());
        }
        health = health.withRemediation(replan(pool, health));
        pool.updated(
                node.withHealth(health).withNode(HealthMarks.withAlerts(node.node(), health.alerts(), pool.now())),
                raised ? "AlertRaised" : "AlertResolved");
    }

    /** The alert as it is acted on: a Reboot alert that flaps takes its node out of service. */
    private Alert alert(AlertCatalogue.Entry entry, String details, Instant at, long raisedInWindow) {
        if (entry.action() != AlertAction.Reboot || raisedInWindow < repair.flapThreshold()) {
            return new Alert(entry.alert(), entry.condition(), entry.action(), details, at);
        }
        String flapping = "raised " + raisedInWindow + " times within "
                + repair.flapWindow().toSeconds() + "s: taken out of service instead of rebooting again";
        return new Alert(
                entry.alert(),
                entry.condition(),
                AlertAction.Triage,
                details == null ? flapping : details + "; " + flapping,
                at);
    }

    /**
     * What the node's remediation becomes with these alerts: one starts (waiting for the budget) when an alert calls
     * for action, a waiting one is dropped when none does any more, a stronger action replaces a weaker one even while
     * it runs (a reboot then ends in the node's removal). A user's deletion stays what it is.
     */
    private static Remediation replan(WorkingPool pool, NodeHealth health) {
        Remediation current = health.remediation();
        AlertAction action = health.action();
        // A restart on the DPU evicts nothing, so disabling eviction does not hold it.
        Plan wanted = action == AlertAction.None
                ? null
                : evictionDisabled(pool) && action != AlertAction.Restart ? Plan.Hold : Plan.of(action);
        String why = health.alerts().stream()
                .filter(a -> a.action() == action)
                .map(Alert::name)
                .findFirst()
                .orElse(null);
        if (current == null) {
            return wanted == null ? null : Remediation.waiting(wanted, why, pool.now());
        }
        if (current.plan() == Plan.Delete || current.plan() == Plan.Hold) {
            return current;
        }
        if (wanted == null) {
            return current.step() == Remediation.Step.Waiting ? null : current;
        }
        return wanted.compareTo(current.plan()) > 0 ? current.withPlan(wanted, why) : current;
    }

    static boolean evictionDisabled(WorkingPool pool) {
        Lifecycle lifecycle = pool.spec().lifecycle();
        return lifecycle != null && Boolean.TRUE.equals(lifecycle.disableUnhealthyNodeEviction());
    }

    /**
     * A user's request to delete one node ({@code CWNodeDeletionRequestSuccess}): it is drained, removed and replaced,
     * whatever its health; a node already leaving, or a request for another incarnation of the pool, changes nothing.
     */
    public static void onDeletion(WorkingPool pool, NodeDeletionRequested request) {
        PoolNode node = pool.node(request.node());
        if (request.uid() != null && !request.uid().equals(pool.uid())
                || !pool.firstHandling(request.id())
                || node == null
                || node.leaving()
                || node.remediation() != null && node.remediation().plan() == Plan.Delete) {
            return;
        }
        NodeHealth health = node.health() == null ? NodeHealth.NONE : node.health();
        Remediation current = health.remediation();
        Remediation deletion =
                current == null || current.step() == Remediation.Step.Waiting || current.step() == Remediation.Step.Held
                        ? Remediation.waiting(Plan.Delete, "deletion request", pool.now())
                        : current.withPlan(Plan.Delete, "deletion request");
        pool.keep(node.withHealth(health.withRemediation(deletion)));
        pool.poolEvent(
                CwEvent.CWNodeDeletionRequestSuccess,
                "Request to delete node " + node.name() + " received: it "
                        + "is drained, removed and replaced by another node.",
                pool.uid() + "/" + node.grant().grantId() + "/deletion");
    }
}
