package com.coreweave.nodepool.provisioner.domain.controllers.health;

import com.coreweave.nodepool.provisioner.domain.model.AlertAction;
import com.coreweave.nodepool.provisioner.domain.model.HealthMarks;
import com.coreweave.nodepool.provisioner.domain.model.NodeHealth;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.Remediation;
import com.coreweave.nodepool.provisioner.domain.model.Remediation.Plan;
import com.coreweave.nodepool.provisioner.domain.model.Remediation.Step;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;

/**
 * A restart of a software component on a node's DPU (reference 001's {@code DPURouteCountMismatch}: "a software
 * component on the DPU will need to be restarted"): no cordon, drain or reboot, the host serves throughout. It starts
 * at once ({@code DPUComponentRestarting}) and, after {@link #RESTART_TIME}, ends the alerts it answered
 * ({@code DPUComponentRestarted}).
 */
final class ComponentRestarts {

    /** How long the DPU component takes to come back in the simulation. */
    static final Duration RESTART_TIME = Duration.ofSeconds(5);

    private ComponentRestarts() {}

    static void start(WorkingPool pool, PoolNode node, String cause) {
        Remediation remediation = node.remediation();
        pool.keep(
                withRemediation(node, remediation.at(Step.Restarting, pool.now().plus(RESTART_TIME))));
        pool.nodeEvent(
                node.name(),
                CwEvent.DPUComponentRestarting,
                "Restarting a software component on node " + node.name() + "'s DPU for alert " + remediation.why()
                        + "; the node stays in service.",
                cause);
    }

    /** Ends a restart whose time is up; a stronger alert raised meanwhile waits its turn as any other. */
    static void advance(WorkingPool pool, PoolNode node, String cause) {
        Remediation remediation = node.remediation();
        if (remediation.plan() != Plan.Restart) {
            pool.keep(withRemediation(node, remediation.at(Step.Waiting, null)));
            return;
        }
        if (remediation.deadline() != null && remediation.deadline().isAfter(pool.now())) {
            return;
        }
        NodeHealth health = node.health();
        health = health.withAlerts(health.alerts().stream()
                        .filter(a -> a.action() != AlertAction.Restart)
                        .toList())
                .withRemediation(null);
        Node next = HealthMarks.withAlerts(node.node(), health.alerts(), pool.now());
        pool.updated(node.withNode(next).withHealth(health), "ComponentRestarted");
        pool.nodeEvent(
                node.name(),
                CwEvent.DPUComponentRestarted,
                "The software component on node " + node.name() + "'s DPU restarted for alert " + remediation.why()
                        + "; the node stayed in service.",
                cause);
    }

    private static PoolNode withRemediation(PoolNode node, Remediation next) {
        return node.withHealth(node.health().withRemediation(next));
    }
}
