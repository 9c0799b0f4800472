package com.coreweave.nodepool.api;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.Verdicts;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.PendingNodeConfiguration;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.InstanceTypes;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.restassured.path.json.JsonPath;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Publishes what the other services would say about a pool, so the api-service can be tested alone. */
final class Facts {

    private final TopicProbe probe;
    private final PoolRef pool;

    /** A probe of the test broker that has published the catalogue's A100 type, as the capacity-service does. */
    static TopicProbe probeWithCatalogue() {
        TopicProbe probe = new TopicProbe(KafkaResource.bootstrapServers());
        InstanceTypes.publish(probe, InstanceTypes.A100);
        return probe;
    }

    Facts(TopicProbe probe, JsonPath created, String org) {
        this.probe = probe;
        this.pool = new PoolRef(
                org,
                created.getString("metadata.name"),
                created.getString("metadata.uid"),
                created.getLong("metadata.generation"),
                created.getString("spec.region"),
                created.getString("spec.instanceType"),
                created.getString("spec.computeClass"));
    }

    PoolRef pool() {
        return pool;
    }

    void registered(int index) {
        probe.sendJson(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                key(),
                new NodeFact.NodeRegistered(
                        pool,
                        node(index, Node.Phase.Registered),
                        new Grant(machine(index), index + 1L),
                        Instant.now()));
    }

    void removed(int index) {
        probe.sendJson(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                key(),
                new NodeFact.NodeRemoved(
                        pool,
                        node(index, Node.Phase.Removed),
                        new Grant(machine(index), index + 1L),
                        "PoolDeleted",
                        Instant.now()));
    }

    void reconciled(int target, int current, boolean deleting, boolean nodesRemoved) {
        probe.sendJson(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                key(),
                new NodeFact.NodePoolReconciled(
                        pool,
                        target,
                        current,
                        0,
                        0,
                        "np-test0001",
                        null,
                        List.of(),
                        deleting,
                        nodesRemoved,
                        false,
                        null,
                        Instant.now()));
    }

    /** A reconcile of a pool that quota admitted in full and capacity granted in full, with both verdicts. */
    void reconciledAdmitted(int nodes) {
        probe.sendJson(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                key(),
                new NodeFact.NodePoolReconciled(
                        pool,
                        nodes,
                        nodes,
                        0,
                        0,
                        "np-test0001",
                        null,
                        List.of(),
                        false,
                        false,
                        false,
                        null,
                        Instant.now(),
                        null,
                        null,
                        null,
                        new Verdicts(
                                Conditions.Quota.UNDER,
                                "NodePool is within instance type quota.",
                                Conditions.Capacity.SUFFICIENT,
                                "Sufficient capacity available for the requested instance type.",
                                0),
                        null,
                        null));
    }

    /** A reconcile of one node on {@code np-test0001} with a configuration staged and the revisions so far. */
    void configured(PendingNodeConfiguration pending, List<NodeConfigurationRevision> revisions) {
        probe.sendJson(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                key(),
                new NodeFact.NodePoolReconciled(
                        pool, 1, 1, 0, 0, "np-test0001", pending, revisions, false, false, false, null, Instant.now()));
    }

    void event(String id, CwEvent event, String message) {
        probe.sendJson(
                Topics.NODEPOOL_EVENT_RECORDED.name(),
                key(),
                new RecordedEvents(List.of(RecordedEvent.ofPool(pool, event, message, id, "test", Instant.now()))));
    }

    String machine(int index) {
        return "us-east-04a-gd-8xa100-i128-" + String.format("%04d", index);
    }

    Node node(int index, Node.Phase phase) {
        Instant now = Instant.now();
        return Node.of(
                new Node.Meta(
                        machine(index),
                        now,
                        Map.of(
                                Node.LABEL_NODE_POOL,
                                pool.pool(),
                                Node.LABEL_INSTANCE_TYPE,
                                pool.instanceType(),
                                Node.LABEL_ZONE,
                                pool.zone()),
                        null),
                new Node.Spec(null, false, List.of()),
                new Node.Status(
                        phase,
                        "np-test0001",
                        1,
                        now,
                        List.of(
                                new Condition(
                                        Node.CONDITION_ACTIVE, "False", "Idle", "No workload reported.", now, null),
                                new Condition(
                                        Node.CONDITION_REGISTERED,
                                        "True",
                                        "Registered",
                                        "Node joined the cluster.",
                                        now,
                                        null),
                                new Condition(Node.CONDITION_REMOVAL, "False", "NotPendingRemoval", "", now, null))));
    }

    private String key() {
        return pool.org() + "/" + pool.pool();
    }
}
