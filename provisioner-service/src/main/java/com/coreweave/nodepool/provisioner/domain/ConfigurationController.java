package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.provisioner.domain.NodeConfigState.Change;
import com.coreweave.nodepool.provisioner.domain.NodeConfigState.Revision;
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
 * staged or asked for, waits while nodes are in delivery ({@link ConfigurationWaits}). New nodes boot the active
 * configuration; nodes booted into another one are outdated until a reconfigure reboot ({@link ReconfigureReboots}).
 */
final class ConfigurationController {

    /** Revisions kept per pool: enough to roll back a few steps, bounded so that the pool's record stays small. */
    static final int MAX_REVISIONS = 10;
    /** Request ids remembered per pool, so that a redelivered request is recognised. */
    static final int MAX_HANDLED = 32;

    private ConfigurationController() {}

    /**
     * Brings the pool's configurations up to its spec and releases: the first configuration of a new pool, a new one
     * after a spec change or a release.
     */
    static void evaluate(WorkingPool pool, NodeReleases releases) {
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
                setPending(pool, null, "", cause);
                ConfigurationWaits.dropAutomatic(pool);
            } else if (stage) {
                setPending(pool, null, "", cause);
                ConfigurationWaits.stage(pool, desired, why + " (" + strategy + ")", cause);
            } else if (pool.configs().pending() == null
                    || !pool.configs().pending().nodeProfile().equals(desired.nodeProfile())) {
                setPending(
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
    static void request(WorkingPool pool, NodeConfigurationRequested request) {
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

    /** Marks the configuration a pool was disabled with, so that no rollback returns to it. */
    static void disable(WorkingPool pool, String profile) {
        pool.changeConfigs(pool.configs()
                .withRevisions(pool.configs().revisions().stream()
                        .map(r -> r.config().nodeProfile().equals(profile) ? new Revision(r.config(), true) : r)
                        .toList()));
    }

    private static String strategy(WorkingPool pool) {
        var strategy = pool.spec().nodeConfigurationUpdateStrategy();
        return strategy == null || strategy.type() == null
                ? NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE
                : strategy.type();
    }
}
