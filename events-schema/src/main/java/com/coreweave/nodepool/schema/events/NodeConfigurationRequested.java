package com.coreweave.nodepool.schema.events;

import java.time.Instant;
import java.util.List;

/**
 * A user's request to change which node configuration a pool runs (inbound {@code nodepool-configuration-requested},
 * keyed {@code <org>/<pool>}; the api-service's {@code /upgrade}, {@code /rollback} and {@code /reconfigure} write it,
 * platform tooling may publish it too). {@code id} makes a repeated request a no-op; {@code uid}, when set, ties it to
 * one incarnation of the pool so that it cannot reach a pool created again under the same name.
 *
 * <ul>
 *   <li>{@code Upgrade}: promote {@code status.pendingNodeConfiguration} to the active configuration;
 *   <li>{@code Rollback}: make the revision {@code nodeProfile} (one of {@code status.nodeConfigurationRevisions}) the
 *       active configuration again;
 *   <li>{@code Reconfigure}: reconfigure-reboot the pool's outdated nodes (those in {@code nodes}, or all of them when
 *       it is empty) into the active configuration.
 * </ul>
 */
public record NodeConfigurationRequested(
        String id,
        String org,
        String pool,
        String uid,
        Action action,
        String nodeProfile,
        List<String> nodes,
        Instant requestedAt) {

    public enum Action {
        Upgrade,
        Rollback,
        Reconfigure
    }

    public NodeConfigurationRequested {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
    }
}
