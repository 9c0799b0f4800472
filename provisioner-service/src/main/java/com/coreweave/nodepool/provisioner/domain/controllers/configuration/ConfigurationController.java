package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfig;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState.Change;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState.Revision;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.NodeConfigurationUpdateStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A pool's node configurations, as reference 000 describes them. A spec change of {@code image}/{@code gpu} or an
 * upstream release of the pool's train builds a new configuration; whether it becomes active at once
 * ({@code CWNodeConfigStaged}) or waits as {@code pendingNodeConfiguration} ({@code CWPendingNodeConfig}) is the pool's
 * {@code nodeConfigurationUpdateStrategy}: {@code Always} stages both, {@code OnSpecUpdate} stages spec changes only,
 * {@code Manual} stages neither. A user upgrades to the pending configuration or rolls back to a revision. A change,
 * staged or asked for, waits while nodes are in delivery ({@link ConfigurationWaits}) and is applied by
 * {@link ConfigurationChanges}. New nodes boot the active configuration; nodes booted into another one are outdated
 * until a reconfigure reboot ({@link ReconfigureReboots}).
 */
public final class ConfigurationController implements Controller {

    /** Request ids remembered per pool, so that a redelivered request is recognised. */
    static final int MAX_HANDLED = 32;

    @Override
    public String name() {
        return "configuration";
    }

    /** Brings the pool's configurations up to its spec and the releases it is reconciled with. */
    @Override
    public void reconcile(WorkingPool pool) {
        evaluate(pool, pool.releases());
    }

    /**
     * Brings the pool's configurations up to its spec and releases: the first configuration of a new pool, a new one
     * after a spec change or a release.
     */
    public static void evaluate(WorkingPool pool, NodeReleases releases) {
        String source = NodeProfiles.specSource(pool.spec());
        NodeReleasePublished release = NodeProfiles.release(pool.spec(), releases);
        String releaseSeen = release == null ? null : release.releaseTrain() + "=" + release.version();
        NodeConfigState state = pool.configs();
        if (state == null
                && (pool.lastReconciled() == null || pool.lastReconciled().nodeProfile() == null)) {
            NodeConfig first = NodeProfiles.configure(pool.spec(), releases, pool.now());
            pool.changeConfigs(NodeConfigState.first(first, source, releaseSeen));
            return;
        }
        if (state == null) {
            state = adopted(pool, source);
            pool.changeConfigs(state);
        }
        boolean specChanged = !source.equals(state.specSource());
        boolean released = !Objects.equals(releaseSeen, state.releaseSeen());
        if (specChanged || released) {
            pool.changeConfigs(state.seen(source, releaseSeen));
            NodeConfig desired = NodeProfiles.configure(pool.spec(), releases, pool.now());
            String why = specChanged
                    ? "the NodePool's spec changed"
                    : "release " + release.version() + " of the " + release.releaseTrain() + " train was published";
            String cause = pool.uid() + "/config-" + desired.nodeProfile();
            String strategy = strategy(pool);
            boolean stage = NodeConfigurationUpdateStrategy.ALWAYS.equals(strategy)
                    || specChanged && NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE.equals(strategy);
            if (desired.nodeProfile().equals(pool.configs().active().nodeProfile())) {
                ConfigurationChanges.setPending(pool, null, "", cause);
                ConfigurationWaits.dropAutomatic(pool);
            } else if (stage) {
                ConfigurationChanges.setPending(pool, null, "", cause);
                ConfigurationWaits.stage(pool, desired, why + " (" + strategy + ")", cause);
            } else if (pool.configs().pending() == null
                    || !pool.configs().pending().nodeProfile().equals(desired.nodeProfile())) {
                ConfigurationChanges.setPending(
                        pool,
                        desired,
                        "Node configuration " + desired.nodeProfile() + " is pending: " + why + "; the " + strategy
                                + " strategy waits for an upgrade to adopt it.",
                        cause);
            }
        }
    }

    /**
     * A pool reconciled by a version that kept no configurations: the profile its nodes run stays active, as of the
     * fleet's initial release, so that a newer release is offered to it by its strategy rather than imposed on it.
     */
    private static NodeConfigState adopted(WorkingPool pool, String source) {
        NodeConfig initial = NodeProfiles.configure(pool.spec(), NodeReleases.INITIAL, pool.now());
        NodeConfig running = new NodeConfig(pool.lastReconciled().nodeProfile(), pool.now(), initial.summary());
        NodeReleasePublished release = NodeProfiles.release(pool.spec(), NodeReleases.INITIAL);
        return NodeConfigState.first(
                running, source, release == null ? null : release.releaseTrain() + "=" + release.version());
    }

    /** A user's upgrade, rollback or reconfigure request; a repeated request id changes nothing. */
    public static void request(WorkingPool pool, NodeConfigurationRequested request) {
        NodeConfigState state = pool.configs();
        if (state.handled().contains(request.id())) {
            return;
        }
        List<String> handled = new ArrayList<>(state.handled());
        handled.add(request.id());
        if (handled.size() > MAX_HANDLED) {
            handled = handled.subList(handled.size() - MAX_HANDLED, handled.size());
        }
        pool.changeConfigs(state.withHandled(handled));
        String cause = pool.uid() + "/request-" + request.id();
        switch (request.action()) {
            case Upgrade -> upgrade(pool, request, cause);
            case Rollback -> rollback(pool, request, cause);
            case Reconfigure -> ReconfigureReboots.request(pool, request);
        }
    }

    private static void upgrade(WorkingPool pool, NodeConfigurationRequested request, String cause) {
        NodeConfigState state = pool.configs();
        if (ConfigurationWaits.conflicts(pool, Action.Upgrade, cause)) {
            return;
        }
        if (state.pending() == null) {
            pool.poolEvent(
                    CwEvent.CWNodePoolNoPendingConfiguration,
                    "Upgrade refused: the NodePool has no pending node " + "configuration; "
                            + state.active().nodeProfile() + " is active.",
                    cause);
            return;
        }
        pool.poolEvent(
                CwEvent.CWManualUpgradeTrigger,
                "Upgrade to the pending node configuration " + state.pending().nodeProfile() + " requested.",
                cause);
        ConfigurationWaits.change(pool, new Change(Action.Upgrade, state.pending(), request.id(), null), cause);
    }

    private static void rollback(WorkingPool pool, NodeConfigurationRequested request, String cause) {
        NodeConfigState state = pool.configs();
        if (ConfigurationWaits.conflicts(pool, Action.Rollback, cause)) {
            return;
        }
        String profile = request.nodeProfile();
        Revision revision = state.revisions().stream()
                .filter(r -> r.config().nodeProfile().equals(profile))
                .findFirst()
                .orElse(null);
        String refusal = null;
        if (revision == null) {
            refusal = profile + " is not one of the NodePool's configuration revisions ("
                    + String.join(
                            ", ",
                            state.revisions().stream()
                                    .map(r -> r.config().nodeProfile())
                                    .toList()) + ")";
        } else if (revision.disabled()) {
            refusal = profile + " is disabled after repeated boot failures";
        } else if (profile.equals(state.active().nodeProfile())) {
            refusal = profile + " is already the active configuration";
        }
        if (refusal != null) {
            pool.poolEvent(CwEvent.CWNodePoolNodeConfigRollbackFailed, "Rollback failed: " + refusal + ".", cause);
            return;
        }
        pool.poolEvent(
                CwEvent.CWManualRollbackTrigger, "Rollback to node configuration " + profile + " requested.", cause);
        ConfigurationWaits.change(pool, new Change(Action.Rollback, revision.config(), request.id(), null), cause);
    }

    private static String strategy(WorkingPool pool) {
        var strategy = pool.spec().nodeConfigurationUpdateStrategy();
        return strategy == null || strategy.type() == null
                ? NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE
                : strategy.type();
    }
}
