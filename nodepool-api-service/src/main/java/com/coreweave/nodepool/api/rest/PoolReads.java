package com.coreweave.nodepool.api.rest;

import static com.coreweave.nodepool.kit.reads.InteractiveQueries.segment;

import com.coreweave.nodepool.api.domain.DeletedPoolEvents;
import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.ViewPart;
import com.coreweave.nodepool.api.streams.StoreNames;
import com.coreweave.nodepool.kit.reads.InteractiveQueries;
import com.coreweave.nodepool.kit.reads.InternalReads;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Reads pools from the status aggregator's stores: the instance that holds a pool's partition answers from its store,
 * any other forwards the read to it, so every instance answers for every pool; scans ask every instance. A scan names
 * one org, or none for an operator's read of every org; entries are keyed {@code <org>/<pool>}. Every read is the
 * current caller's: service-kit's {@code InteractiveQueries} cuts each store to the caller's keys and checks what other
 * instances answer, whatever a scan here asks for.
 */
@ApplicationScoped
public class PoolReads {

    @Inject
    InteractiveQueries queries;

    /**
     * The pool's view with its nodes and spot preemptions, which are stored beside it ({@link PoolView#parts}); where
     * only the pool itself is needed, {@link #view} or {@link #published} reads less.
     */
    public Optional<PoolView> wholeView(PoolKey key) {
        return view(key).map(head -> PoolView.joined(head, parts(key)));
    }

    /** The nodes of the pools of {@code org} (every org's when null), keyed {@code <org>/<pool>/n/<node>}. */
    public SortedMap<String, Node> nodes(String org) {
        SortedMap<String, Node> all = localNodes(org);
        all.putAll(queries.entriesFromOthers(
                StoreNames.POOL_VIEW_PARTS,
                InternalReads.path("pool-nodes") + scope(org),
                new TypeReference<Map<String, Node>>() {}));
        return all;
    }

    /** A node of the pools of {@code org} by its name, with its pool; empty when the org has no such node. */
    public Optional<OwnedNode> node(String org, String name) {
        for (var entry : nodes(org).entrySet()) {
            if (entry.getKey().endsWith("/" + ViewPart.NODES + name)) {
                return Optional.of(new OwnedNode(PoolKey.ofPart(entry.getKey()), entry.getValue()));
            }
        }
        return Optional.empty();
    }

    /** A node and the pool it belongs to. */
    public record OwnedNode(PoolKey pool, Node node) {}

    /** This instance's share of {@link #nodes}. */
    public SortedMap<String, Node> localNodes(String org) {
        SortedMap<String, Node> nodes = new TreeMap<>();
        queries.<ViewPart>localEntries(StoreNames.POOL_VIEW_PARTS, org == null ? null : PoolKey.orgPrefix(org))
                .forEach((key, part) -> {
                    if (part instanceof ViewPart.NodePart node) {
                        nodes.put(key, node.node());
                    }
                });
        return nodes;
    }

    /** The parts stored beside pool {@code key}'s view, by id. */
    private SortedMap<String, ViewPart> parts(PoolKey key) {
        String prefix = key + "/";
        SortedMap<String, ViewPart> parts = new TreeMap<>();
        queries.<ViewPart>membersOf(
                        StoreNames.POOL_VIEW_PARTS,
                        StoreNames.POOL_VIEWS,
                        key.toString(),
                        InternalReads.path("pool-parts", key.org(), key.pool()),
                        new TypeReference<Map<String, ViewPart>>() {})
                .forEach((stored, part) -> parts.put(stored.substring(prefix.length()), part));
        return parts;
    }

    /** This instance's share of the parts of pool {@code key}, keyed as stored. */
    public SortedMap<String, ViewPart> localParts(PoolKey key) {
        return queries.localMembersOf(StoreNames.POOL_VIEW_PARTS, StoreNames.POOL_VIEWS, key.toString());
    }

    /** The pool's view as stored under its key: without its nodes and preemptions ({@link #wholeView}). */
    public Optional<PoolView> view(PoolKey key) {
        return queries.get(
                StoreNames.POOL_VIEWS,
                key.toString(),
                InternalReads.path("pool-views", key.org(), key.pool()),
                PoolView.class);
    }

    /** The published resource of a pool, read from its view's bytes alone ({@link PoolView#publishedIn}). */
    public Optional<NodePool> published(PoolKey key) {
        return queries.get(
                StoreNames.POOL_VIEWS,
                key.toString(),
                InternalReads.path("pool-published", key.org(), key.pool()),
                NodePool.class,
                PoolView::publishedIn);
    }

    /** The Kubernetes Events of a pool, read from its view's bytes alone ({@link PoolView#eventsIn}). */
    public Optional<PoolEvents> events(PoolKey key) {
        return queries.get(
                StoreNames.POOL_VIEWS,
                key.toString(),
                InternalReads.path("pool-events", key.org(), key.pool()),
                PoolEvents.class,
                PoolView::eventsIn);
    }

    /**
     * The published resources of up to {@code limit} pools of {@code org} (of every org when null) after the key
     * {@code after}, in key order, from all instances: each answers its own page and the first {@code limit} of them
     * all are kept. Each is read from its view's bytes alone ({@link PoolView#publishedIn}).
     */
    public SortedMap<String, NodePool> publishedPage(String org, String after, int limit) {
        SortedMap<String, NodePool> page = localPublishedPage(org, after, limit);
        page.putAll(queries.entriesFromOthers(
                StoreNames.POOL_VIEWS,
                InternalReads.path("pool-published") + "?limit=" + limit + (org == null ? "" : "&org=" + segment(org))
                        + (after == null ? "" : "&after=" + segment(after)),
                new TypeReference<Map<String, NodePool>>() {}));
        while (page.size() > limit) {
            page.remove(page.lastKey());
        }
        return page;
    }

    /**
     * A page of the pools of {@code org} (every org when null) as {@code shown}, the selected ones after the key
     * {@code after}: read a page at a time from the stores until {@code limit} are found or none are left.
     */
    Lister.Page<NodePool> poolsPage(
            String org,
            Function<Map.Entry<String, NodePool>, NodePool> shown,
            Predicate<NodePool> selected,
            String after,
            int limit) {
        List<NodePool> items = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        String cursor = after;
        int batch = limit == Integer.MAX_VALUE - 1 ? limit : limit + 1;
        while (items.size() <= limit) {
            SortedMap<String, NodePool> published = publishedPage(org, cursor, batch);
            for (Map.Entry<String, NodePool> entry : published.entrySet()) {
                NodePool pool = shown.apply(entry);
                if (selected.test(pool) && items.size() <= limit) {
                    items.add(pool);
                    keys.add(entry.getKey());
                }
            }
            if (published.size() < batch) {
                break;
            }
            cursor = published.lastKey();
        }
        return items.size() > limit
                ? new Lister.Page<>(items.subList(0, limit), keys.get(limit - 1))
                : new Lister.Page<>(items, null);
    }

    /**
     * The events of every pool of {@code org} (of every org when null), from all instances; deleted pools' too, while
     * they are kept ({@link #localEvents(String)}).
     */
    public SortedMap<String, PoolEvents> events(String org) {
        SortedMap<String, PoolEvents> all = localEvents(org);
        all.putAll(queries.entriesFromOthers(
                StoreNames.POOL_VIEWS,
                InternalReads.path("pool-events") + scope(org),
                new TypeReference<Map<String, PoolEvents>>() {}));
        return all;
    }

    /** An instance type of the capacity-service's catalogue (a global store: every instance holds all of it). */
    public Optional<InstanceType> instanceType(String name) {
        return name == null ? Optional.empty() : queries.localGet(StoreNames.INSTANCE_TYPES, name);
    }

    /** The whole catalogue; empty until the capacity-service has published it. */
    public Collection<InstanceType> instanceTypes() {
        return queries.<InstanceType>localEntries(StoreNames.INSTANCE_TYPES, null)
                .values();
    }

    /** Whether the pool's partition (its view's and its requests') is moving to another instance now. */
    public boolean moving(PoolKey key) {
        return queries.moving(StoreNames.POOL_VIEWS, key.toString());
    }

    public Optional<PoolView> localView(PoolKey key) {
        return queries.localGet(StoreNames.POOL_VIEWS, key.toString());
    }

    public Optional<NodePool> localPublished(PoolKey key) {
        return queries.localGet(StoreNames.POOL_VIEWS, key.toString(), PoolView::publishedIn);
    }

    public Optional<PoolEvents> localEvents(PoolKey key) {
        return queries.localGet(StoreNames.POOL_VIEWS, key.toString(), PoolView::eventsIn);
    }

    /** This instance's share of {@link #publishedPage}. */
    public SortedMap<String, NodePool> localPublishedPage(String org, String after, int limit) {
        return queries.localPage(
                StoreNames.POOL_VIEWS,
                org == null ? null : PoolKey.orgPrefix(org),
                after,
                limit,
                PoolView::publishedIn);
    }

    /**
     * This instance's share of {@link #events(String)}: each live pool's read from its view's bytes alone (keyed
     * {@code <org>/<pool>}), and each deleted pool's whose Events are still kept (keyed {@code <org>/<pool>/<uid>}).
     */
    public SortedMap<String, PoolEvents> localEvents(String org) {
        String prefix = org == null ? null : PoolKey.orgPrefix(org);
        SortedMap<String, PoolEvents> events =
                queries.localPage(StoreNames.POOL_VIEWS, prefix, null, Integer.MAX_VALUE, PoolView::eventsIn);
        queries.<DeletedPoolEvents>localEntries(StoreNames.DELETED_POOL_EVENTS, prefix)
                .forEach((key, deleted) -> events.put(key, deleted.asPoolEvents()));
        return events;
    }

    private static String scope(String org) {
        return org == null ? "" : "?org=" + segment(org);
    }
}
