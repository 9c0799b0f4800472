package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import java.util.List;

/**
 * What the provisioner keeps about a pool's node configurations: the active one (what new and reconfigured nodes boot),
 * the one waiting for a user's upgrade ({@code pending}, null when none), the once-active ones ({@code revisions},
 * oldest first, a bounded number), the spec source and the release version the configuration was last built from (to
 * tell a spec change and an upstream release apart), a manual change waiting for nodes mid-delivery ({@code waiting}),
 * and the ids of the latest requests handled (a repeated request changes nothing).
 */
public record NodeConfigState(
        NodeConfig active,
        NodeConfig pending,
        List<Revision> revisions,
        String specSource,
        String releaseSeen,
        Change waiting,
        List<String> handled) {

    /** A configuration that was active once; {@code disabled} after repeated boot failures with it. */
    public record Revision(NodeConfig config, boolean disabled) {}

    /**
     * A user's upgrade or rollback, or a configuration the strategy stages automatically ({@code requestId} null,
     * {@code why} it was built), applied once no node of the pool is in delivery.
     */
    public record Change(Action action, NodeConfig target, String requestId, String why) {

        public static Change automatic(NodeConfig target, String why) {
            return new Change(Action.Upgrade, target, null, why);
        }

        public boolean automatic() {
            return requestId == null;
        }
    }

    public NodeConfigState {
        revisions = revisions == null ? List.of() : List.copyOf(revisions);
        handled = handled == null ? List.of() : List.copyOf(handled);
    }

    /** The first configuration of a pool: active, its only revision, built from {@code specSource} and the release. */
    public static NodeConfigState first(NodeConfig active, String specSource, String releaseSeen) {
        return new NodeConfigState(
                active, null, List.of(new Revision(active, false)), specSource, releaseSeen, null, List.of());
    }

    public NodeConfigState seen(String nextSpecSource, String nextReleaseSeen) {
        return new NodeConfigState(active, pending, revisions, nextSpecSource, nextReleaseSeen, waiting, handled);
    }

    public NodeConfigState withActive(NodeConfig next, List<Revision> nextRevisions) {
        return new NodeConfigState(next, pending, nextRevisions, specSource, releaseSeen, waiting, handled);
    }

    public NodeConfigState withPending(NodeConfig next) {
        return new NodeConfigState(active, next, revisions, specSource, releaseSeen, waiting, handled);
    }

    NodeConfigState withRevisions(List<Revision> next) {
        return new NodeConfigState(active, pending, next, specSource, releaseSeen, waiting, handled);
    }

    public NodeConfigState withWaiting(Change next) {
        return new NodeConfigState(active, pending, revisions, specSource, releaseSeen, next, handled);
    }

    /** These configurations with {@code profile}'s revision marked disabled, so that no rollback returns to it. */
    public NodeConfigState withDisabled(String profile) {
        return withRevisions(revisions.stream()
                .map(r -> r.config().nodeProfile().equals(profile) ? new Revision(r.config(), true) : r)
                .toList());
    }

    public NodeConfigState withHandled(List<String> next) {
        return new NodeConfigState(active, pending, revisions, specSource, releaseSeen, waiting, next);
    }
}
