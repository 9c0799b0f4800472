package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfig;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState.Change;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.Remediation;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;

/**
 * A configuration change that waits for the nodes in delivery (first boots, retries included; a reboot in place is no
 * delivery): they would boot into a configuration gone stale. A user's upgrade or rollback waits so, and so does a
 * configuration staged automatically ({@code OnSpecUpdate}, {@code Always}); each says so with
 * {@code CWNodePoolNodeConfigUpdatePending} and is applied once none is in delivery.
 *
 * <p>Two changes are simultaneous when the second comes while the first still waits; one of them is refused
 * ({@code CWNodePoolNodeConfigUpdateConflict}): a user's change of the other direction, or a spec's configuration while
 * a user's change waits (it is then pending, for an upgrade after).
 */
public final class ConfigurationWaits implements Controller {

    @Override
    public String name() {
        return "configuration.waits";
    }

    /** A waiting change completes once no node is in delivery any more. */
    @Override
    public void reconcile(WorkingPool pool) {
        completeWaiting(pool);
    }

    /** Nodes in delivery: booting into the pool for the first time, not rebooting in place. */
    static int inDelivery(WorkingPool pool) {
        return (int) pool.nodes().stream()
                .filter(n -> n.phase() == Node.Phase.Booting
                        && n.reconfigure() != PoolNode.Reconfigure.Rebooting
                        && (n.remediation() == null || n.remediation().step() != Remediation.Step.Rebooting))
                .count();
    }

    /** A waiting change completes once no node is in delivery any more. */
    static void completeWaiting(WorkingPool pool) {
        Change waiting = pool.configs().waiting();
        if (waiting != null && inDelivery(pool) == 0) {
            ConfigurationChanges.apply(pool, waiting);
        }
    }

    /** A user's upgrade or rollback: applied now, or held while nodes are in delivery. */
    static void change(WorkingPool pool, Change change, String cause) {
        int delivering = inDelivery(pool);
        if (delivering == 0) {
            ConfigurationChanges.apply(pool, change);
            return;
        }
        pool.changeConfigs(pool.configs().withWaiting(change));
        pool.poolEvent(
                CwEvent.CWNodePoolNodeConfigUpdatePending,
                "The update to node configuration " + change.target().nodeProfile() + " waits for " + delivering
                        + " node(s) mid-delivery; it completes once they have booted into the cluster.",
                cause);
    }

    /**
     * A configuration the strategy stages automatically: active now, or once the nodes in delivery have booted; while a
     * user's change waits it is pending instead.
     */
    static void stage(WorkingPool pool, NodeConfig desired, String why, String cause) {
        Change waiting = pool.configs().waiting();
        if (waiting != null && !waiting.automatic()) {
            pool.poolEvent(
                    CwEvent.CWNodePoolNodeConfigUpdateConflict,
                    "Node configuration " + desired.nodeProfile() + " (" + why + ") is not staged: a "
                            + waiting.action() + " to " + waiting.target().nodeProfile()
                            + " is still waiting for nodes mid-delivery; it is pending instead.",
                    cause);
            ConfigurationChanges.setPending(
                    pool,
                    desired,
                    "Node configuration " + desired.nodeProfile() + " is pending: " + why + " while a "
                            + waiting.action() + " waited; an upgrade adopts it.",
                    cause);
            return;
        }
        Change automatic = Change.automatic(desired, why);
        int delivering = inDelivery(pool);
        if (delivering == 0) {
            pool.changeConfigs(pool.configs().withWaiting(null));
            ConfigurationChanges.apply(pool, automatic);
            return;
        }
        pool.changeConfigs(pool.configs().withWaiting(automatic));
        pool.poolEvent(
                CwEvent.CWNodePoolNodeConfigUpdatePending,
                "Node configuration " + desired.nodeProfile() + " (" + why + ") waits for " + delivering
                        + " node(s) mid-delivery; it is staged once they have booted into the cluster.",
                cause);
    }

    /** The spec went back to the active configuration: a staging still waiting is dropped. */
    static void dropAutomatic(WorkingPool pool) {
        Change waiting = pool.configs().waiting();
        if (waiting != null && waiting.automatic()) {
            pool.changeConfigs(pool.configs().withWaiting(null));
        }
    }

    /** An upgrade while a rollback waits, or the other way round, is refused: the user asked for two things at once. */
    static boolean conflicts(WorkingPool pool, Action action, String cause) {
        Change waiting = pool.configs().waiting();
        if (waiting == null || waiting.action() == action) {
            return false;
        }
        pool.poolEvent(
                CwEvent.CWNodePoolNodeConfigUpdateConflict,
                action + " refused: a " + waiting.action() + " to "
                        + waiting.target().nodeProfile() + " is still waiting for nodes mid-delivery.",
                cause);
        return true;
    }
}
