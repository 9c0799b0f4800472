package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;
import java.util.List;

/**
 * The typed registry of every topic and the one way each is read ({@link Topic#read}); docs/topics.md describes the
 * same list for people.
 */
public final class Topics {

    private Topics() {}

    /** The services, by the name each one's Kafka Streams application id, dead-letter topic and principal carry. */
    public static final List<String> SERVICES = List.of(
            TopicTraits.API, TopicTraits.QUOTA, TopicTraits.CAPACITY, TopicTraits.PROVISIONER, TopicTraits.PREEMPTION);

    // The pool spine.
    public static final Topic<PoolKey, CloudEvent<JsonNode>> NODEPOOL_REQUESTED = PoolTopics.NODEPOOL_REQUESTED;
    public static final Topic<String, byte[]> NODEPOOL_REQUESTED_DLQ = PoolTopics.NODEPOOL_REQUESTED_DLQ;
    public static final Topic<PoolKey, RequestDecided> NODEPOOL_REQUEST_DECIDED = PoolTopics.NODEPOOL_REQUEST_DECIDED;
    public static final Topic<PoolKey, NodePoolAccepted> NODEPOOL_ACCEPTED = PoolTopics.NODEPOOL_ACCEPTED;
    public static final Topic<String, OrgPoolCount> ORG_POOLS_COUNTED = PoolTopics.ORG_POOLS_COUNTED;
    public static final Topic<PoolKey, RecordedEvents> NODEPOOL_EVENT_RECORDED = PoolTopics.NODEPOOL_EVENT_RECORDED;
    public static final Topic<PoolKey, Event> NODEPOOL_EVENTS = PoolTopics.NODEPOOL_EVENTS;
    public static final Topic<PoolKey, NodePool> NODEPOOL_STATUS = PoolTopics.NODEPOOL_STATUS;
    public static final Topic<String, JsonNode> AUDIT_EVENTS = PoolTopics.AUDIT_EVENTS;

    // Quota and capacity.
    public static final Topic<QuotaKey, QuotaLimit> QUOTA_LIMIT_SET = CapacityTopics.QUOTA_LIMIT_SET;
    public static final Topic<QuotaKey, QuotaDemanded> QUOTA_DEMANDED = CapacityTopics.QUOTA_DEMANDED;
    public static final Topic<ZoneTypeKey, CapacityDemanded> CAPACITY_DEMANDED = CapacityTopics.CAPACITY_DEMANDED;
    public static final Topic<String, InstanceType> INSTANCE_TYPE_CATALOGUED = CapacityTopics.INSTANCE_TYPE_CATALOGUED;
    public static final Topic<ZoneTypeKey, FleetChangeRequested> FLEET_CHANGE_REQUESTED =
            CapacityTopics.FLEET_CHANGE_REQUESTED;
    public static final Topic<PoolKey, CapacityChecked> CAPACITY_CHECKED = CapacityTopics.CAPACITY_CHECKED;
    public static final Topic<PoolKey, SpotReclaimRequested> SPOT_RECLAIM_REQUESTED =
            CapacityTopics.SPOT_RECLAIM_REQUESTED;
    public static final Topic<PoolKey, PreemptionFact> SPOT_PREEMPTION_PROGRESSED =
            CapacityTopics.SPOT_PREEMPTION_PROGRESSED;
    public static final Topic<ZoneTypeKey, FleetAvailability> FLEET_AVAILABILITY = CapacityTopics.FLEET_AVAILABILITY;

    // Nodes.
    public static final Topic<PoolKey, NodeActivityReported> NODE_ACTIVITY_REPORTED = NodeTopics.NODE_ACTIVITY_REPORTED;
    public static final Topic<String, byte[]> NODE_ACTIVITY_REPORTED_DLQ = NodeTopics.NODE_ACTIVITY_REPORTED_DLQ;
    public static final Topic<PoolKey, NodeFact> NODEPOOL_NODES_CHANGED = NodeTopics.NODEPOOL_NODES_CHANGED;
    public static final Topic<PoolKey, NodeConfigurationRequested> NODEPOOL_CONFIGURATION_REQUESTED =
            NodeTopics.NODEPOOL_CONFIGURATION_REQUESTED;
    public static final Topic<String, byte[]> NODEPOOL_CONFIGURATION_REQUESTED_DLQ =
            NodeTopics.NODEPOOL_CONFIGURATION_REQUESTED_DLQ;
    public static final Topic<String, NodeReleasePublished> NODE_RELEASE_PUBLISHED = NodeTopics.NODE_RELEASE_PUBLISHED;
    public static final Topic<PoolKey, CloudEvent<NodeAlert>> NODE_ALERT_RAISED = NodeTopics.NODE_ALERT_RAISED;
    public static final Topic<String, byte[]> NODE_ALERT_RAISED_DLQ = NodeTopics.NODE_ALERT_RAISED_DLQ;
    public static final Topic<PoolKey, NodeDeletionRequested> NODE_DELETION_REQUESTED =
            NodeTopics.NODE_DELETION_REQUESTED;
    public static final Topic<String, byte[]> NODE_DELETION_REQUESTED_DLQ = NodeTopics.NODE_DELETION_REQUESTED_DLQ;
    public static final Topic<PoolKey, NodeChangeRequested> NODE_CHANGE_REQUESTED = NodeTopics.NODE_CHANGE_REQUESTED;
    public static final Topic<String, byte[]> NODE_CHANGE_REQUESTED_DLQ = NodeTopics.NODE_CHANGE_REQUESTED_DLQ;

    // Pending workloads.
    public static final Topic<PoolKey, CloudEvent<Workload>> WORKLOAD_PENDING = WorkloadTopics.WORKLOAD_PENDING;
    public static final Topic<String, byte[]> WORKLOAD_PENDING_DLQ = WorkloadTopics.WORKLOAD_PENDING_DLQ;
    public static final Topic<PoolKey, WorkloadStatus> WORKLOAD_STATUS = WorkloadTopics.WORKLOAD_STATUS;
    public static final Topic<String, PoolOffer> POOL_OFFERED = WorkloadTopics.POOL_OFFERED;
    public static final Topic<PoolKey, PoolDemand> POOL_DEMAND_PLANNED = WorkloadTopics.POOL_DEMAND_PLANNED;

    /** Records a service could not read from an internal topic (see {@link DeadLetters}). */
    public static Topic<String, byte[]> serviceDeadLetters(String service) {
        return new Topic<>(
                DeadLetters.serviceTopic(service),
                KeyFormat.AS_RECEIVED,
                ValueFormat.raw(),
                RecordCheck.none(),
                TopicTraits.DELETED,
                TopicTraits.FORTNIGHT,
                service,
                TopicTraits.KEY_PARTITION,
                "Internal records " + service + " could not read, with the reason in headers.");
    }

    public static List<Topic<?, ?>> all() {
        return List.of(
                NODEPOOL_REQUESTED,
                NODEPOOL_REQUESTED_DLQ,
                NODEPOOL_REQUEST_DECIDED,
                NODEPOOL_ACCEPTED,
                QUOTA_LIMIT_SET,
                QUOTA_DEMANDED,
                CAPACITY_DEMANDED,
                ORG_POOLS_COUNTED,
                INSTANCE_TYPE_CATALOGUED,
                FLEET_CHANGE_REQUESTED,
                CAPACITY_CHECKED,
                SPOT_RECLAIM_REQUESTED,
                NODE_ACTIVITY_REPORTED,
                NODE_ACTIVITY_REPORTED_DLQ,
                NODEPOOL_NODES_CHANGED,
                SPOT_PREEMPTION_PROGRESSED,
                NODEPOOL_EVENT_RECORDED,
                NODEPOOL_EVENTS,
                NODEPOOL_STATUS,
                NODEPOOL_CONFIGURATION_REQUESTED,
                NODEPOOL_CONFIGURATION_REQUESTED_DLQ,
                NODE_RELEASE_PUBLISHED,
                NODE_ALERT_RAISED,
                NODE_ALERT_RAISED_DLQ,
                NODE_DELETION_REQUESTED,
                NODE_DELETION_REQUESTED_DLQ,
                NODE_CHANGE_REQUESTED,
                NODE_CHANGE_REQUESTED_DLQ,
                WORKLOAD_PENDING,
                WORKLOAD_PENDING_DLQ,
                WORKLOAD_STATUS,
                FLEET_AVAILABILITY,
                POOL_OFFERED,
                POOL_DEMAND_PLANNED,
                AUDIT_EVENTS);
    }
}
