package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import com.coreweave.nodepool.provisioner.domain.disruption.DisruptionAllowance;
import com.coreweave.nodepool.provisioner.domain.disruption.DoNotDisrupt;
import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaultPoints;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionReason;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reconfigure reboots (reference 000): a user asks for the outdated nodes (all, or those named) to reboot into the
 * pool's active configuration. They do so once they are idle, and as the pool's disruption budgets allow for
 * {@code Reconfigure} (by default {@code maxConcurrentReboots} out of service at a time), so the pool keeps serving: a
 * busy node keeps its workload until the platform team reports it idle. The active configuration is staged onto the
 * node first; when the fleet fails that ({@code CWNodeConfigStagingFailed}) it is tried again after
 * {@code provisioner.retry-interval}, until it succeeds. The reboot is a boot into the active configuration, with the
 * boot time and the failure handling of any boot.
 */
public final class ReconfigureReboots implements Controller {

    private final ProvisioningPolicy policy;

    public ReconfigureReboots(ProvisioningPolicy policy) {
        this.policy = policy;
    }

    /** Marks the outdated nodes asked for (all when none is named) for a reconfigure reboot. */
    static void request(WorkingPool pool, NodeConfigurationRequested request) {
        Set<String> named = new HashSet<>(request.nodes());
        String active = pool.activeProfile();
        for (PoolNode node : pool.snapshot()) {
            boolean asked = named.isEmpty() || named.contains(node.name());
            if (asked
                    && !node.leaving()
                    && node.reconfigure() == null
                    && node.phase() == Node.Phase.Registered
                    && !active.equals(node.node().status().nodeProfile())) {
                pool.keep(node.withReconfigure(PoolNode.Reconfigure.Requested));
            }
        }
    }

    @Override
    public String name() {
        return "configuration.reboots";
    }

    /** Idle outdated nodes asked to reboot start their reboot while the budgets allow one more for Reconfigure. */
    @Override
    public void reconcile(WorkingPool pool) {
        String profile = pool.activeProfile();
        DisruptionAllowance allowance = DisruptionAllowance.of(pool, policy);
        int held = 0;
        List<PoolNode> kept = new ArrayList<>();
        for (PoolNode node : pool.snapshot()) {
            if (node.reconfigure() != PoolNode.Reconfigure.Requested) {
                continue;
            }
            if (node.leaving() || profile.equals(node.node().status().nodeProfile())) {
                pool.keep(node.withReconfigure(null).withRetry(null));
                continue;
            }
            if (node.active() || node.phase() != Node.Phase.Registered || pool.disabled()) {
                continue;
            }
            if (DoNotDisrupt.held(node)) {
                kept.add(node);
                continue;
            }
            if (allowance.decide(DisruptionReason.Reconfigure).allowed() <= 0) {
                held++;
                continue;
            }
            if (!staged(pool, node, profile)) {
                continue;
            }
            allowance.started(DisruptionReason.Reconfigure);
            Node rebooted = NodeTemplate.rebooting(node.node(), profile, pool.now());
            pool.updated(
                    node.booting(rebooted, pool.now().plus(policy.bootTime()))
                            .withReconfigure(PoolNode.Reconfigure.Rebooting)
                            .withRetry(null),
                    "ReconfigureReboot");
            pool.nodeEvent(
                    node.name(),
                    CwEvent.CWConfigStaged,
                    "Node configuration " + profile + " staged for the " + "node's reconfigure reboot.",
                    pool.uid() + "/" + node.grant().grantId() + "/"
                            + rebooted.status().bootAttempt());
        }
        allowance.held(DisruptionReason.Reconfigure, held, "to reboot into configuration " + profile, kept);
    }

    /**
     * Stages the active configuration onto the node; false while a failed staging waits for its retry or this attempt
     * fails too.
     */
    private boolean staged(WorkingPool pool, PoolNode node, String profile) {
        PoolNode.Retry retry = node.retry();
        if (retry != null && retry.at().isAfter(pool.now())) {
            return false;
        }
        int attempt = retry == null ? 1 : retry.failures() + 1;
        if (!FleetFaultPoints.stagingFails(policy, pool, node.name(), attempt)) {
            return true;
        }
        String error = "Staging node configuration " + profile + " onto node " + node.name() + " failed (attempt "
                + attempt + "); retrying in " + policy.faults().retryInterval().toSeconds() + "s.";
        pool.keep(node.withRetry(
                new PoolNode.Retry(attempt, pool.now().plus(policy.faults().retryInterval()), error)));
        pool.nodeEvent(
                node.name(),
                CwEvent.CWNodeConfigStagingFailed,
                error,
                pool.uid() + "/" + node.grant().grantId() + "/stage-"
                        + node.node().status().bootAttempt() + "-" + attempt);
        return false;
    }

    /** Whether a failed staging of this node waits for its retry. */
    public static boolean retrying(PoolNode node) {
        return node.reconfigure() == PoolNode.Reconfigure.Requested && node.retry() != null;
    }
}
