package com.coreweave.nodepool.provisioner;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Taint;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.TopicProbe;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One pool as the services around the provisioner would drive it over the broker: the api-service publishes its
 * accepted spec, a stand-in for the capacity ledger grants machines up to the target (freeing a grant when a
 * {@code NodeRemoved} names it, never taking one back, keeping a machine taken out of service in maintenance), platform
 * teams report activity; and the pool's nodes are read back from {@code nodepool-nodes-changed} the way the status
 * aggregator folds them.
 */
final class PoolStandIn {

    static final String ORG = "demo";
    static final String ZONE = "US-EAST-04A";
    static final String TYPE = "gd-8xa100-i128";
    private static final AtomicLong GRANT_IDS = new AtomicLong(1);

    /** Where the stand-in writes (as the other services) and reads (what the provisioner wrote). */
    record Feeds(TopicProbe probe, TopicProbe.Tail<String> nodesChanged, TopicProbe.Tail<String> eventsRecorded)
            implements AutoCloseable {

        static Feeds open(String bootstrapServers) {
            TopicProbe probe = new TopicProbe(bootstrapServers);
            return new Feeds(
                    probe,
                    probe.tail(Topics.NODEPOOL_NODES_CHANGED.name()),
                    probe.tail(Topics.NODEPOOL_EVENT_RECORDED.name()));
        }

        @Override
        public void close() {
            probe.close();
            nodesChanged.close();
            eventsRecorded.close();
        }
    }

    private final TopicProbe probe;
    private final TopicProbe.Tail<String> nodesChanged;
    private final TopicProbe.Tail<String> eventsRecorded;
    final String name;
    final String uid = UUID.randomUUID().toString();
    private final List<String> fleet = new ArrayList<>();
    private final Set<Grant> held = new LinkedHashSet<>();
    private final Set<String> maintenance = new LinkedHashSet<>();
    private NodePoolAccepted accepted;
    private CapacityChecked published;

    PoolStandIn(Feeds feeds, String name, int fleetSize) {
        this.probe = feeds.probe();
        this.nodesChanged = feeds.nodesChanged();
        this.eventsRecorded = feeds.eventsRecorded();
        this.name = name;
        for (int i = 1; i <= fleetSize; i++) {
            fleet.add(name + "-m" + i);
        }
    }

    String key() {
        return ORG + "/" + name;
    }

    static NodePoolSpec spec(int target, String strategy) {
        return new NodePoolSpec(
                "default",
                TYPE,
                target,
                null,
                null,
                Map.of("team", "research"),
                null,
                List.of(new Taint("nvidia.com/gpu", "present", "NoSchedule")),
                null,
                null,
                false,
                new Lifecycle(strategy, false),
                null,
                ZONE);
    }

    /** The api-service accepts a new spec (the next generation). */
    void accept(NodePoolSpec spec) {
        long generation = accepted == null ? 1 : accepted.generation() + 1;
        ObjectMeta meta = new ObjectMeta(name, uid, generation, "rv-" + generation, Instant.now(), null, null, null);
        publish(new NodePoolAccepted(
                ORG,
                NodePool.of(meta, spec, null),
                new Validation("Valid", "NodePool configuration is valid."),
                Instant.now()));
    }

    /** The api-service marks the pool as being deleted. */
    void delete() {
        var pool = accepted.nodePool();
        publish(new NodePoolAccepted(
                ORG,
                pool.withMetadata(pool.metadata().withDeletionTimestamp(Instant.now())),
                accepted.validation(),
                Instant.now()));
    }

    private void publish(NodePoolAccepted next) {
        accepted = next;
        probe.sendJson(Topics.NODEPOOL_ACCEPTED.name(), key(), next);
    }

    /**
     * The capacity ledger's step: frees the grants the provisioner released, grants free machines up to the demand (the
     * target; nothing for a deleting pool) under new ids, and publishes the pool's grants when they changed.
     */
    void settleCapacity() {
        for (NodeFact fact : facts()) {
            if (fact instanceof NodeFact.NodeRemoved removed) {
                held.remove(removed.grant());
                if (removed.outOfService()) {
                    maintenance.add(removed.grant().machine());
                }
            }
        }
        int demand = accepted.deleting() ? 0 : accepted.nodePool().spec().target();
        for (String machine : fleet) {
            boolean taken = held.stream().anyMatch(g -> g.machine().equals(machine)) || maintenance.contains(machine);
            if (held.size() < demand && !taken) {
                held.add(new Grant(machine, GRANT_IDS.getAndIncrement()));
            }
        }
        CapacityChecked next = new CapacityChecked(
                ref(),
                held.size() >= demand ? "Sufficient" : "Partial",
                demand,
                List.copyOf(held),
                Math.max(0, demand - held.size()),
                null,
                null,
                "",
                Instant.now());
        if (published == null
                || !published.grants().equals(next.grants())
                || published.pool().generation() != next.pool().generation()) {
            published = next;
            probe.sendJson(Topics.CAPACITY_CHECKED.name(), key(), next);
        }
    }

    PoolRef ref() {
        return PoolRef.of(accepted);
    }

    Set<Grant> heldGrants() {
        return held;
    }

    Set<String> maintenance() {
        return maintenance;
    }

    void report(String node, boolean active) {
        probe.sendJson(
                Topics.NODE_ACTIVITY_REPORTED.name(),
                key(),
                new NodeActivityReported(ORG, name, node, active, null, Instant.now()));
    }

    /** Every fact the provisioner wrote about this incarnation, in order. */
    List<NodeFact> facts() {
        return nodesChanged.read().stream()
                .filter(r -> r.key().equals(key()))
                .map(r -> Json.read(r.value(), NodeFact.class))
                .filter(f -> f.pool().uid().equals(uid))
                .toList();
    }

    <T extends NodeFact> List<T> facts(Class<T> type) {
        return facts().stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The pool's nodes as the status aggregator keeps them: the latest snapshot of each, removed ones dropped. */
    Map<String, Node> nodes() {
        Map<String, Node> nodes = new TreeMap<>();
        for (NodeFact fact : facts()) {
            if (fact instanceof NodeFact.NodeRemoved removed) {
                nodes.remove(removed.node().name());
            } else if (fact instanceof NodeFact.AboutNode about) {
                nodes.put(about.node().name(), about.node());
            }
        }
        return nodes;
    }

    NodeFact.NodePoolReconciled reconciled() {
        var all = facts(NodeFact.NodePoolReconciled.class);
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    List<RecordedEvent> events() {
        return eventsRecorded.read().stream()
                .filter(r -> r.key().equals(key()))
                .flatMap(r -> Json.read(r.value(), RecordedEvents.class).events().stream())
                .filter(e -> e.poolUid().equals(uid))
                .toList();
    }

    List<String> reasons() {
        return events().stream().map(RecordedEvent::reason).toList();
    }
}
