package com.coreweave.nodepool.schema.topics;

import static com.coreweave.nodepool.schema.topics.TopicTraits.ANY_PARTITION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.API;
import static com.coreweave.nodepool.schema.topics.TopicTraits.COMPACTED;
import static com.coreweave.nodepool.schema.topics.TopicTraits.DELETED;
import static com.coreweave.nodepool.schema.topics.TopicTraits.FOREVER;
import static com.coreweave.nodepool.schema.topics.TopicTraits.KEY_PARTITION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.PROVISIONER;
import static com.coreweave.nodepool.schema.topics.TopicTraits.WEEK;

import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.PoolKey;

/**
 * The topics of nodes: their lifecycle facts, and what users, monitoring and releases ask of them (activity,
 * configuration, alerts, deletions, changes), each inbound one with its dead letters. {@link Topics} lists them.
 */
final class NodeTopics {

    private NodeTopics() {}

    static final Topic<PoolKey, NodeActivityReported> NODE_ACTIVITY_REPORTED = new Topic<>(
            "node-activity-reported",
            KeyFormat.POOL,
            NodeRecordChecks.ACTIVITY,
            NodeRecordChecks::activity,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: nodes reported busy or idle.");
    static final Topic<String, byte[]> NODE_ACTIVITY_REPORTED_DLQ = TopicTraits.deadLetters(
            NODE_ACTIVITY_REPORTED, PROVISIONER, "Activity reports that could not be used, with reason.");
    static final Topic<PoolKey, NodeFact> NODEPOOL_NODES_CHANGED = new Topic<>(
            "nodepool-nodes-changed",
            KeyFormat.POOL,
            ValueFormat.json(NodeFact.class),
            NodeRecordChecks::nodeFact,
            DELETED,
            WEEK,
            PROVISIONER,
            KEY_PARTITION,
            "Node lifecycle facts and per-pool reconcile summaries.");
    static final Topic<PoolKey, NodeConfigurationRequested> NODEPOOL_CONFIGURATION_REQUESTED = new Topic<>(
            "nodepool-configuration-requested",
            KeyFormat.POOL,
            ValueFormat.json(NodeConfigurationRequested.class),
            NodeRecordChecks::configurationRequested,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: upgrade to the pending node configuration, roll back to a revision, reconfigure-reboot nodes.");
    static final Topic<String, byte[]> NODEPOOL_CONFIGURATION_REQUESTED_DLQ = TopicTraits.deadLetters(
            NODEPOOL_CONFIGURATION_REQUESTED,
            PROVISIONER,
            "Configuration requests that could not be used, with reason.");
    static final Topic<String, NodeReleasePublished> NODE_RELEASE_PUBLISHED = new Topic<>(
            "node-release-published",
            KeyFormat.RELEASE_TRAIN,
            ValueFormat.json(NodeReleasePublished.class),
            NodeRecordChecks::release,
            COMPACTED,
            FOREVER,
            PROVISIONER + " (admin REST)",
            KEY_PARTITION,
            "Upstream node image releases per release train, written to every partition.");
    static final Topic<PoolKey, CloudEvent<NodeAlert>> NODE_ALERT_RAISED = new Topic<>(
            "node-alert-raised",
            KeyFormat.POOL,
            NodeAlerts.FORMAT,
            NodeAlerts.CHECK,
            DELETED,
            WEEK,
            "monitoring, " + PROVISIONER + " (admin REST)",
            ANY_PARTITION,
            "Inbound: NodeAlertRaised / NodeAlertResolved CloudEvents naming a node and an alert of the catalogue.");
    static final Topic<String, byte[]> NODE_ALERT_RAISED_DLQ =
            TopicTraits.deadLetters(NODE_ALERT_RAISED, PROVISIONER, "Node alerts that could not be used, with reason.");
    static final Topic<PoolKey, NodeDeletionRequested> NODE_DELETION_REQUESTED = new Topic<>(
            "node-deletion-requested",
            KeyFormat.POOL,
            ValueFormat.json(NodeDeletionRequested.class),
            NodeRecordChecks::deletionRequested,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: a node to drain, remove and replace.");
    static final Topic<String, byte[]> NODE_DELETION_REQUESTED_DLQ = TopicTraits.deadLetters(
            NODE_DELETION_REQUESTED, PROVISIONER, "Node deletion requests that could not be used, with reason.");
    static final Topic<PoolKey, NodeChangeRequested> NODE_CHANGE_REQUESTED = new Topic<>(
            "node-change-requested",
            KeyFormat.POOL,
            ValueFormat.json(NodeChangeRequested.class),
            NodeRecordChecks::changeRequested,
            DELETED,
            WEEK,
            API + " (REST: kubectl cordon, label, annotate, taint, drain)",
            KEY_PARTITION,
            "Inbound: a user's cordon, labels, annotations, taints or eviction of one node.");
    static final Topic<String, byte[]> NODE_CHANGE_REQUESTED_DLQ = TopicTraits.deadLetters(
            NODE_CHANGE_REQUESTED, PROVISIONER, "Node change requests that could not be used, with reason.");
}
