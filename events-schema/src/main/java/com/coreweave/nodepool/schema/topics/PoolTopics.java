package com.coreweave.nodepool.schema.topics;

import static com.coreweave.nodepool.schema.topics.TopicTraits.ANY_PARTITION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.API;
import static com.coreweave.nodepool.schema.topics.TopicTraits.AUDIT_RETENTION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.COMPACTED;
import static com.coreweave.nodepool.schema.topics.TopicTraits.DAY;
import static com.coreweave.nodepool.schema.topics.TopicTraits.DELETED;
import static com.coreweave.nodepool.schema.topics.TopicTraits.FOREVER;
import static com.coreweave.nodepool.schema.topics.TopicTraits.KEY_PARTITION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.PROVISIONER;
import static com.coreweave.nodepool.schema.topics.TopicTraits.WEEK;

import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;

/**
 * The pool spine's topics: requests and their decisions, the accepted pools and their counts, the events recorded and
 * published, the status served, and the audit trail. {@link Topics} lists them.
 */
final class PoolTopics {

    private PoolTopics() {}

    static final Topic<PoolKey, CloudEvent<JsonNode>> NODEPOOL_REQUESTED = new Topic<>(
            "nodepool-requested",
            KeyFormat.POOL,
            NodePoolRequests.FORMAT,
            NodePoolRequests.CHECK,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST), " + PROVISIONER + " (autoscaler)",
            ANY_PARTITION,
            "Inbound: NodePoolRequested CloudEvents (structured JSON), APPLY or DELETE.");
    static final Topic<String, byte[]> NODEPOOL_REQUESTED_DLQ = TopicTraits.deadLetters(
            NODEPOOL_REQUESTED, API, "Requests that were refused, as received, with the reason in headers.");
    static final Topic<PoolKey, RequestDecided> NODEPOOL_REQUEST_DECIDED = new Topic<>(
            "nodepool-request-decided",
            KeyFormat.POOL,
            ValueFormat.json(RequestDecided.class),
            PoolRecordChecks::requestDecided,
            DELETED,
            DAY,
            API,
            KEY_PARTITION,
            "The pool processor's answer to each request id, read by the REST call waiting for it.");
    static final Topic<PoolKey, NodePoolAccepted> NODEPOOL_ACCEPTED = new Topic<>(
            "nodepool-accepted",
            KeyFormat.POOL,
            ValueFormat.json(NodePoolAccepted.class),
            PoolRecordChecks::accepted,
            COMPACTED,
            FOREVER,
            API,
            KEY_PARTITION,
            "The accepted pool: metadata, spec with defaults, validation, the generation in force; "
                    + "tombstone once deleted.");
    static final Topic<String, OrgPoolCount> ORG_POOLS_COUNTED = new Topic<>(
            "org-pools-counted",
            KeyFormat.name("<org>/<partition>"),
            ValueFormat.json(OrgPoolCount.class),
            PoolRecordChecks::orgPoolCount,
            COMPACTED,
            FOREVER,
            API,
            KEY_PARTITION,
            "How many pools each org has in each partition: the pool count quota's tally.");
    static final Topic<PoolKey, RecordedEvents> NODEPOOL_EVENT_RECORDED = new Topic<>(
            "nodepool-event-recorded",
            KeyFormat.POOL,
            ValueFormat.json(RecordedEvents.class),
            PoolRecordChecks::eventsRecorded,
            DELETED,
            WEEK,
            "every service",
            KEY_PARTITION,
            "CW* and spot events as each service records them, those of one change in one record; folded into "
                    + "nodepool-events.");
    static final Topic<PoolKey, Event> NODEPOOL_EVENTS = new Topic<>(
            "nodepool-events",
            KeyFormat.POOL,
            ValueFormat.json(Event.class),
            RecordCheck.none(),
            DELETED,
            WEEK,
            API,
            KEY_PARTITION,
            "Outbound: Kubernetes Events (reason, type, message, involvedObject, count).");
    static final Topic<PoolKey, NodePool> NODEPOOL_STATUS = new Topic<>(
            "nodepool-status",
            KeyFormat.POOL,
            ValueFormat.json(NodePool.class),
            PoolRecordChecks::status,
            COMPACTED,
            FOREVER,
            API,
            KEY_PARTITION,
            "Outbound: the whole materialized NodePool; tombstone on delete.");
    static final Topic<String, JsonNode> AUDIT_EVENTS = new Topic<>(
            "audit-events",
            KeyFormat.name("<org>, or " + AuditKeys.UNAUTHENTICATED),
            ValueFormat.json(JsonNode.class),
            PoolRecordChecks::auditEvent,
            DELETED,
            AUDIT_RETENTION,
            "every service",
            KEY_PARTITION,
            "The audit trail: one Kubernetes audit event per write, REST and topic alike, refusals summarized.");
}
