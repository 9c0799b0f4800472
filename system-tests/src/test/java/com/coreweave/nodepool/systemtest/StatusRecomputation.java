package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.PoolViewReducer;
import com.coreweave.nodepool.api.domain.StatusProjector;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolStatus;
import com.coreweave.nodepool.testing.TopicProbe.Kept;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every live pool's published status ({@code nodepool-status}) against a recomputation from the pool's facts: its
 * latest accepted spec, then its node facts in their partition's order (the provisioner's summaries carry quota's and
 * capacity's verdicts), folded by the api-service's own {@link PoolViewReducer} and projected by its
 * {@link StatusProjector}, so the check cannot drift from the product. Condition transition times are left out: they
 * record when the pool processor saw a change, which no offline fold can know. So is the resourceVersion, which every
 * status change moves on: the published one must only be no older than the accepted spec's.
 */
final class StatusRecomputation {

    private StatusRecomputation() {}

    /** One line per live pool whose published resource differs from its recomputation. */
    static List<String> mismatches(
            List<List<Kept<NodePoolAccepted>>> accepted,
            List<List<Kept<NodeFact>>> nodes,
            List<List<Kept<NodePool>>> status) {
        Map<String, PoolView> views = new HashMap<>();
        Invariants.live(accepted).forEach((key, pool) -> views.put(key, PoolView.of(pool)));
        Instant now = Instant.now();
        for (Kept<NodeFact> fact : Invariants.flat(nodes)) {
            PoolView view = views.get(fact.key());
            if (view != null && fact.value() != null) {
                views.put(fact.key(), PoolViewReducer.apply(view, fact.value(), now));
            }
        }
        Map<String, NodePool> published = Invariants.latest(status);
        List<String> found = new ArrayList<>();
        views.forEach((key, view) -> {
            NodePool expected = timeless(StatusProjector.project(view, now));
            NodePool actual = published.get(key) == null ? null : timeless(published.get(key));
            if (actual != null && version(actual) >= version(expected)) {
                actual = actual.withMetadata(actual.metadata()
                        .withResourceVersion(expected.metadata().resourceVersion()));
            }
            if (!expected.equals(actual)) {
                found.add(key + ": nodepool-status says " + (actual == null ? "nothing" : Json.string(actual.status()))
                        + (actual != null && !expected.withStatus(null).equals(actual.withStatus(null))
                                ? " of " + Json.string(actual.metadata())
                                : "")
                        + ", its facts say " + Json.string(expected.status()));
            }
        });
        found.sort(null);
        return found;
    }

    private static long version(NodePool pool) {
        return Long.parseLong(pool.metadata().resourceVersion());
    }

    private static NodePool timeless(NodePool pool) {
        NodePoolStatus s = pool.status();
        if (s == null || s.conditions() == null) {
            return pool;
        }
        List<Condition> conditions = s.conditions().stream()
                .map(c -> new Condition(c.type(), c.status(), c.reason(), c.message(), null, c.observedGeneration()))
                .toList();
        return pool.withStatus(new NodePoolStatus(
                s.observedGeneration(),
                conditions,
                s.currentNodes(),
                s.inProgress(),
                s.queuedNodes(),
                s.nodeProfile(),
                s.pendingNodeConfiguration(),
                s.nodeConfigurationRevisions(),
                s.disruption(),
                s.pendingDemand()));
    }
}
