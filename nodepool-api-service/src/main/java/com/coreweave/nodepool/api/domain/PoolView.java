package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything the api-service knows of one pool: the accepted pool, the provisioner's latest summary (with quota's and
 * capacity's verdicts), the nodes and spot preemptions, the resource as last published (whose conditions carry the
 * transition times the next status keeps) and the pool's Kubernetes Events. It is stored split: the {@link #head} under
 * the pool's key in the {@code pool-views} store, and each node and preemption ({@link #parts}) under a key of its own
 * in {@code pool-view-parts}, so a pool of thousands of nodes writes no large value. The published resource is written
 * first and the events next, so a LIST of pools or of events reads its part without binding the rest
 * ({@link #publishedIn}, {@link #eventsIn}). Events live here rather than in a store of their own so that a commit
 * writes a pool once.
 */
@JsonPropertyOrder({"published", "events"})
public record PoolView(
        NodePoolAccepted accepted,
        NodePoolReconciled reconciled,
        Map<String, Node> nodes,
        List<Preemption> preemptions,
        NodeTime nodeTime,
        NodePool published,
        PoolEvents events,
        @JsonIgnore NodeTally tally) {

    public PoolView {
        // A view stored before events moved into it has none.
        events = events == null ? PoolEvents.EMPTY : events;
        // A stored head has its nodes and preemptions apart ({@link #parts}).
        nodes = nodes == null ? Map.of() : nodes;
        preemptions = preemptions == null ? List.of() : preemptions;
        // Derived, never stored: counted once when a view is read, then kept up to date node by node.
        tally = tally == null ? NodeTally.of(nodes.values()) : tally;
    }

    public PoolView(
            NodePoolAccepted accepted,
            NodePoolReconciled reconciled,
            Map<String, Node> nodes,
            List<Preemption> preemptions,
            NodeTime nodeTime,
            NodePool published,
            PoolEvents events) {
        this(accepted, reconciled, nodes, preemptions, nodeTime, published, events, null);
    }

    /**
     * One spot node taken back from this pool: its timeline (warned at {@code pendingAt}, drained from {@code drainAt}
     * or {@code evictedAt} once the drain began, gone by {@code removeBy}), and when it left and why then;
     * {@code removedAt} and {@code cause} stay null while the node is being preempted.
     */
    public record Preemption(
            String node,
            Instant pendingAt,
            Instant drainAt,
            Instant removeBy,
            Instant evictedAt,
            Instant removedAt,
            String cause) {

        @JsonIgnore
        public boolean inFlight() {
            return removedAt == null;
        }
    }

    /**
     * The published resource in a stored view's JSON, read without binding the rest of the view: a page of a LIST needs
     * only that, and the rest of a large pool's view (its nodes) is most of the cost of reading it.
     */
    public static NodePool publishedIn(byte[] json) {
        return fieldIn(json, "published", NodePool.class);
    }

    /** The pool's Events in a stored view's JSON, read without binding the rest of the view (for a LIST of events). */
    public static PoolEvents eventsIn(byte[] json) {
        PoolEvents events = fieldIn(json, "events", PoolEvents.class);
        return events == null ? PoolEvents.EMPTY : events;
    }

    private static <T> T fieldIn(byte[] json, String field, Class<T> type) {
        try (JsonParser parser = Json.mapper().getFactory().createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a stored pool view is a JSON object");
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                boolean wanted = field.equals(parser.currentName());
                JsonToken value = parser.nextToken();
                if (wanted) {
                    return value == JsonToken.VALUE_NULL ? null : Json.mapper().readValue(parser, type);
                }
                parser.skipChildren();
            }
            return null;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read a stored pool view: " + e.getMessage(), e);
        }
    }

    /**
     * The parts of this view that grow with the pool, by id: each node ({@code n/<name>}) and each spot preemption
     * ({@code p/<node>/<warned at, epoch ms>}). Stored apart from the {@link #head}, each under a key of its own.
     */
    public Map<String, ViewPart> parts() {
        Map<String, ViewPart> parts = new HashMap<>(2 * (nodes.size() + preemptions.size()));
        nodes.forEach((name, node) -> parts.put(ViewPart.NODES + name, new ViewPart.NodePart(node)));
        for (Preemption p : preemptions) {
            parts.put(preemptionId(p), new ViewPart.PreemptionPart(p));
        }
        return parts;
    }

    /** This view without its {@link #parts}: what is stored under the pool's key, of a size that does not grow. */
    public PoolView head() {
        return nodes.isEmpty() && preemptions.isEmpty()
                ? this
                : new PoolView(accepted, reconciled, Map.of(), List.of(), nodeTime, published, events, NodeTally.NONE);
    }

    /**
     * The view stored as {@code head} and {@code parts}. A head holds no nodes or preemptions of its own (stores of the
     * version before the split are not read: {@code ./stack reset}).
     */
    public static PoolView joined(PoolView head, Map<String, ViewPart> parts) {
        Map<String, Node> nodes = new TreeMap<>();
        Map<String, Preemption> preemptions = new TreeMap<>();
        parts.values().forEach(part -> {
            switch (part) {
                case ViewPart.NodePart n -> nodes.put(n.node().name(), n.node());
                case ViewPart.PreemptionPart p -> preemptions.put(preemptionId(p.preemption()), p.preemption());
            }
        });
        return new PoolView(
                head.accepted,
                head.reconciled,
                nodes,
                List.copyOf(preemptions.values()),
                head.nodeTime,
                head.published,
                head.events,
                null);
    }

    private static String preemptionId(Preemption p) {
        return ViewPart.PREEMPTIONS + p.node() + "/" + p.pendingAt().toEpochMilli();
    }

    public static PoolView of(NodePoolAccepted accepted) {
        return new PoolView(
                accepted,
                null,
                new TreeMap<>(),
                List.of(),
                NodeTime.start(accepted.acceptedAt()),
                null,
                PoolEvents.EMPTY);
    }

    public String uid() {
        return accepted.uid();
    }

    /**
     * What the parsed view weighs in the cache of recent views, in units of about a KB of heap: one, each node and
     * Event, and each KB of the pool's labels and annotations, which a view holds twice (accepted and published). A
     * pool of 240 KB of annotations weighs some 480 units instead of one, so the cache holds a bounded number of bytes.
     */
    public int heapWeight() {
        var meta = accepted.nodePool().metadata();
        long chars = chars(meta.labels()) + chars(meta.annotations());
        return (int)
                Math.min(Integer.MAX_VALUE, 1 + nodes.size() + events.events().size() + 2 * chars / 1024);
    }

    private static long chars(Map<String, String> entries) {
        long chars = 0;
        if (entries != null) {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                chars += e.getKey().length()
                        + (e.getValue() == null ? 0 : e.getValue().length());
            }
        }
        return chars;
    }

    /** The resourceVersion clients see: the last write's, or a later status change's. */
    public String version() {
        return published == null
                ? accepted.nodePool().metadata().resourceVersion()
                : published.metadata().resourceVersion();
    }

    public PoolView withAccepted(NodePoolAccepted next) {
        return new PoolView(next, reconciled, nodes, preemptions, nodeTime, published, events, tally);
    }

    public PoolView withReconciled(NodePoolReconciled next) {
        return new PoolView(accepted, next, nodes, preemptions, nodeTime, published, events, tally);
    }

    public PoolView withNodes(Map<String, Node> next) {
        return new PoolView(accepted, reconciled, next, preemptions, nodeTime, published, events, null);
    }

    /**
     * With {@code node} (null: without the node named {@code name}): the nodes copied once, the counts moved by that
     * node alone ({@link NodeTally}).
     */
    public PoolView withNode(String name, Node node) {
        Map<String, Node> next = new TreeMap<>(nodes);
        Node before = node == null ? next.remove(name) : next.put(name, node);
        return new PoolView(
                accepted, reconciled, next, preemptions, nodeTime, published, events, tally.replacing(before, node));
    }

    public PoolView withPreemptions(List<Preemption> next) {
        return new PoolView(accepted, reconciled, nodes, next, nodeTime, published, events, tally);
    }

    public PoolView withNodeTime(NodeTime next) {
        return new PoolView(accepted, reconciled, nodes, preemptions, next, published, events, tally);
    }

    public PoolView withPublished(NodePool next) {
        return new PoolView(accepted, reconciled, nodes, preemptions, nodeTime, next, events, tally);
    }

    public PoolView withEvents(PoolEvents next) {
        return new PoolView(accepted, reconciled, nodes, preemptions, nodeTime, published, next, tally);
    }
}
