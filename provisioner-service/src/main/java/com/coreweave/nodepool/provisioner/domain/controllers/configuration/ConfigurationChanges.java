package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import com.coreweave.nodepool.provisioner.domain.model.NodeConfig;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState.Change;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState.Revision;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.resource.CwEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Applies a configuration change to a pool: makes a user's upgrade or rollback, or an automatic staging, the active
 * configuration and a revision ({@code CWNodeConfigStaged}, and {@code CWNodePoolNodeConfigUpdated} for a user's), or
 * keeps a configuration pending ({@code CWPendingNodeConfig}).
 */
final class ConfigurationChanges {

    /** Revisions kept per pool: enough to roll back a few steps, bounded so that the pool's record stays small. */
    static final int MAX_REVISIONS = 10;

    private ConfigurationChanges() {}

    /** Makes a change's configuration active: a user's upgrade or rollback, or an automatic staging. */
    static void apply(WorkingPool pool, Change change) {
        NodeConfigState state = pool.configs();
        pool.changeConfigs(state.withWaiting(null));
        if (change.automatic()) {
            activate(
                    pool,
                    change.target(),
                    false,
                    "Node configuration " + change.target().nodeProfile() + " staged as the active configuration: "
                            + change.why() + ".",
                    pool.uid() + "/config-" + change.target().nodeProfile());
            return;
        }
        String cause = pool.uid() + "/request-" + change.requestId();
        if (change.action() == Action.Upgrade
                && state.pending() != null
                && state.pending().nodeProfile().equals(change.target().nodeProfile())) {
            setPending(pool, null, "", cause);
        }
        String how = change.action() == Action.Upgrade
                ? "upgraded to the pending configuration"
                : "rolled back to an earlier configuration";
        activate(
                pool,
                change.target(),
                true,
                "Node configuration " + change.target().nodeProfile() + " is the active configuration: " + how + ".",
                cause);
    }

    /**
     * Makes {@code config} the active configuration and a revision. A new configuration is a new chance: the boot
     * failure streak and a disabled pool start over, as a spec change does.
     */
    private static void activate(WorkingPool pool, NodeConfig config, boolean manual, String message, String cause) {
        NodeConfigState state = pool.configs();
        List<Revision> revisions = new ArrayList<>(state.revisions().stream()
                .filter(r -> !r.config().nodeProfile().equals(config.nodeProfile()))
                .toList());
        Revision existing = state.revisions().stream()
                .filter(r -> r.config().nodeProfile().equals(config.nodeProfile()))
                .findFirst()
                .orElse(null);
        revisions.add(new Revision(existing == null ? config : existing.config(), false));
        revisions.sort((a, b) -> a.config().createdAt().compareTo(b.config().createdAt()));
        while (revisions.size() > MAX_REVISIONS) {
            revisions.remove(revisions.stream()
                    .filter(r -> !r.config().nodeProfile().equals(config.nodeProfile()))
                    .findFirst()
                    .orElseThrow());
        }
        pool.changeConfigs(state.withActive(config, revisions));
        pool.enable();
        if (manual) {
            pool.poolEvent(CwEvent.CWNodePoolNodeConfigUpdated, message, cause);
        }
        pool.poolEvent(CwEvent.CWNodeConfigStaged, message, cause);
    }

    static void setPending(WorkingPool pool, NodeConfig pending, String message, String cause) {
        if (Objects.equals(pool.configs().pending(), pending)) {
            return;
        }
        pool.changeConfigs(pool.configs().withPending(pending));
        if (pending != null) {
            pool.poolEvent(CwEvent.CWPendingNodeConfig, message, cause);
        }
    }
}
