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
import java.time.Duration;
import java.util.List;

/**
 * The typed registry of every topic and the one way each is read ({@link Topic#read}); docs/topics.md describes the
 * same list for people.
 */
public final class Topics {

    private Topics() {}

    private static final Duration WEEK = Duration.ofDays(7);
    private static final Duration FORTNIGHT = Duration.ofDays(14);
    private static final Duration DAY = Duration.ofDays(1);
    /** Kept long enough for a quarter's review, as audit trails commonly are. */
    private static final Duration AUDIT_RETENTION = Duration.ofDays(90);

    private static final Duration FOREVER = null;
    private static final boolean COMPACTED = true;
    private static final boolean DELETED = false;
    /** Written by parties outside the services, with any client: records arrive on any partition. */
    private static final boolean ANY_PARTITION = true;
    /** Written only by the services' Java producers and Streams apps: each record is on its key's partition. */
    private static final boolean KEY_PARTITION = false;

    private static final String API = "nodepool-api-service";
    private static final String QUOTA = "quota-service";
    private static final String CAPACITY = "capacity-service";
    private static final String PROVISIONER = "provisioner-service";
    private static final String PREEMPTION = "preemption-service";

    /** The services, by the name each one's Kafka Streams application id, dead-letter topic and principal carry. */
    public static final List<String> SERVICES = List.of(API, QUOTA, CAPACITY, PROVISIONER, PREEMPTION);

    public static final Topic<PoolKey, CloudEvent<JsonNode>> NODEPOOL_REQUESTED = new Topic<>(
            "nodepool-requested",
            KeyFormat.POOL,
            NodePoolRequests.FORMAT,
            NodePoolRequests.CHECK,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST), " + PROVISIONER + " (autoscaler)",
            ANY_PARTITION,
            "Inbound: NodePoolRequested CloudEvents (structured JSON), APPLY or DELETE.");
    public static final Topic<String, byte[]> NODEPOOL_REQUESTED_DLQ = deadLetters(
            NODEPOOL_REQUESTED, API, "Requests that were refused, as received, with the reason in headers.");
    public static final Topic<PoolKey, RequestDecided> NODEPOOL_REQUEST_DECIDED = new Topic<>(
            "nodepool-request-decided",
            KeyFormat.POOL,
            ValueFormat.json(RequestDecided.class),
            RecordChecks::requestDecided,
            DELETED,
            DAY,
            API,
            KEY_PARTITION,
            "The pool processor's answer to each request id, read by the REST call waiting for it.");
    public static final Topic<PoolKey, NodePoolAccepted> NODEPOOL_ACCEPTED = new Topic<>(
            "nodepool-accepted",
            KeyFormat.POOL,
            ValueFormat.json(NodePoolAccepted.class),
            RecordChecks::accepted,
            COMPACTED,
            FOREVER,
            API,
            KEY_PARTITION,
            "The accepted pool: metadata, spec with defaults, validation, the generation in force; "
                    + "tombstone once deleted.");
    public static final Topic<QuotaKey, QuotaLimit> QUOTA_LIMIT_SET = new Topic<>(
            "quota-limit-set",
            KeyFormat.QUOTA,
            RecordChecks.QUOTA_LIMIT,
            RecordChecks::quotaLimit,
            COMPACTED,
            FOREVER,
            QUOTA + " (admin REST), operators",
            ANY_PARTITION,
            "Quota limits set by operators; tombstone removes one.");
    public static final Topic<QuotaKey, QuotaDemanded> QUOTA_DEMANDED = new Topic<>(
            "quota-demanded",
            KeyFormat.QUOTA,
            ValueFormat.json(QuotaDemanded.class),
            RecordChecks::quotaDemanded,
            DELETED,
            WEEK,
            API,
            KEY_PARTITION,
            "Each accepted pool's demand (or its deletion), keyed by the quota it draws on.");
    public static final Topic<ZoneTypeKey, CapacityDemanded> CAPACITY_DEMANDED = new Topic<>(
            "capacity-demanded",
            KeyFormat.ZONE_TYPE,
            ValueFormat.json(CapacityDemanded.class),
            RecordChecks::capacityDemanded,
            DELETED,
            WEEK,
            QUOTA,
            KEY_PARTITION,
            "Each pool's quota decision (or its departure), keyed by the capacity ledger it draws on.");
    public static final Topic<String, OrgPoolCount> ORG_POOLS_COUNTED = new Topic<>(
            "org-pools-counted",
            KeyFormat.name("<org>/<partition>"),
            ValueFormat.json(OrgPoolCount.class),
            RecordChecks::orgPoolCount,
            COMPACTED,
            FOREVER,
            API,
            KEY_PARTITION,
            "How many pools each org has in each partition: the pool count quota's tally.");
    public static final Topic<String, InstanceType> INSTANCE_TYPE_CATALOGUED = new Topic<>(
            "instance-type-catalogued",
            KeyFormat.INSTANCE_TYPE,
            ValueFormat.json(InstanceType.class),
            RecordChecks::catalogued,
            COMPACTED,
            FOREVER,
            CAPACITY,
            KEY_PARTITION,
            "The instance-type catalogue.");
    public static final Topic<ZoneTypeKey, FleetChangeRequested> FLEET_CHANGE_REQUESTED = new Topic<>(
            "fleet-change-requested",
            KeyFormat.ZONE_TYPE,
            ValueFormat.json(FleetChangeRequested.class),
            RecordChecks::fleetChange,
            DELETED,
            FORTNIGHT,
            CAPACITY + " (admin REST)",
            KEY_PARTITION,
            "Operators' fleet changes (machines added, removed, in maintenance, spot reclaim).");
    public static final Topic<PoolKey, CapacityChecked> CAPACITY_CHECKED = new Topic<>(
            "capacity-checked",
            KeyFormat.POOL,
            ValueFormat.json(CapacityChecked.class),
            RecordChecks::capacityChecked,
            COMPACTED,
            FOREVER,
            CAPACITY,
            KEY_PARTITION,
            "Each pool's allocation: granted machines, queued nodes and the Capacity reason.");
    public static final Topic<PoolKey, SpotReclaimRequested> SPOT_RECLAIM_REQUESTED = new Topic<>(
            "spot-reclaim-requested",
            KeyFormat.POOL,
            ValueFormat.json(SpotReclaimRequested.class),
            RecordChecks::spotReclaim,
            DELETED,
            WEEK,
            CAPACITY,
            KEY_PARTITION,
            "Spot nodes the capacity ledger needs back for reserved demand or an operator.");
    public static final Topic<PoolKey, NodeActivityReported> NODE_ACTIVITY_REPORTED = new Topic<>(
            "node-activity-reported",
            KeyFormat.POOL,
            RecordChecks.ACTIVITY,
            RecordChecks::activity,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: nodes reported busy or idle.");
    public static final Topic<String, byte[]> NODE_ACTIVITY_REPORTED_DLQ =
            deadLetters(NODE_ACTIVITY_REPORTED, PROVISIONER, "Activity reports that could not be used, with reason.");
    public static final Topic<PoolKey, NodeFact> NODEPOOL_NODES_CHANGED = new Topic<>(
            "nodepool-nodes-changed",
            KeyFormat.POOL,
            ValueFormat.json(NodeFact.class),
            RecordChecks::nodeFact,
            DELETED,
            WEEK,
            PROVISIONER,
            KEY_PARTITION,
            "Node lifecycle facts and per-pool reconcile summaries.");
    public static final Topic<PoolKey, PreemptionFact> SPOT_PREEMPTION_PROGRESSED = new Topic<>(
            "spot-preemption-progressed",
            KeyFormat.POOL,
            ValueFormat.json(PreemptionFact.class),
            RecordChecks::preemption,
            DELETED,
            WEEK,
            PREEMPTION,
            KEY_PARTITION,
            "Spot preemption timeline steps.");
    public static final Topic<PoolKey, RecordedEvents> NODEPOOL_EVENT_RECORDED = new Topic<>(
            "nodepool-event-recorded",
            KeyFormat.POOL,
            ValueFormat.json(RecordedEvents.class),
            RecordChecks::eventsRecorded,
            DELETED,
            WEEK,
            "every service",
            KEY_PARTITION,
            "CW* and spot events as each service records them, those of one change in one record; folded into "
                    + "nodepool-events.");
    public static final Topic<PoolKey, Event> NODEPOOL_EVENTS = new Topic<>(
            "nodepool-events",
            KeyFormat.POOL,
            ValueFormat.json(Event.class),
            RecordCheck.none(),
            DELETED,
            WEEK,
            API,
            KEY_PARTITION,
            "Outbound: Kubernetes Events (reason, type, message, involvedObject, count).");
    public static final Topic<PoolKey, NodePool> NODEPOOL_STATUS = new Topic<>(
            "nodepool-status",
            KeyFormat.POOL,
            ValueFormat.json(NodePool.class),
            RecordChecks::status,
            COMPACTED,
            FOREVER,
            API,
            KEY_PARTITION,
            "Outbound: the whole materialized NodePool; tombstone on delete.");
    public static final Topic<PoolKey, NodeConfigurationRequested> NODEPOOL_CONFIGURATION_REQUESTED = new Topic<>(
            "nodepool-configuration-requested",
            KeyFormat.POOL,
            ValueFormat.json(NodeConfigurationRequested.class),
            RecordChecks::configurationRequested,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: upgrade to the pending node configuration, roll back to a revision, reconfigure-reboot nodes.");
    public static final Topic<String, byte[]> NODEPOOL_CONFIGURATION_REQUESTED_DLQ = deadLetters(
            NODEPOOL_CONFIGURATION_REQUESTED,
            PROVISIONER,
            "Configuration requests that could not be used, with reason.");
    public static final Topic<String, NodeReleasePublished> NODE_RELEASE_PUBLISHED = new Topic<>(
            "node-release-published",
            KeyFormat.RELEASE_TRAIN,
            ValueFormat.json(NodeReleasePublished.class),
            RecordChecks::release,
            COMPACTED,
            FOREVER,
            PROVISIONER + " (admin REST)",
            KEY_PARTITION,
            "Upstream node image releases per release train, written to every partition.");

    public static final Topic<PoolKey, CloudEvent<NodeAlert>> NODE_ALERT_RAISED = new Topic<>(
            "node-alert-raised",
            KeyFormat.POOL,
            NodeAlerts.FORMAT,
            NodeAlerts.CHECK,
            DELETED,
            WEEK,
            "monitoring, " + PROVISIONER + " (admin REST)",
            ANY_PARTITION,
            "Inbound: NodeAlertRaised / NodeAlertResolved CloudEvents naming a node and an alert of the catalogue.");
    public static final Topic<String, byte[]> NODE_ALERT_RAISED_DLQ =
            deadLetters(NODE_ALERT_RAISED, PROVISIONER, "Node alerts that could not be used, with reason.");
    public static final Topic<PoolKey, NodeDeletionRequested> NODE_DELETION_REQUESTED = new Topic<>(
            "node-deletion-requested",
            KeyFormat.POOL,
            ValueFormat.json(NodeDeletionRequested.class),
            RecordChecks::deletionRequested,
            DELETED,
            WEEK,
            "platform teams, " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: a node to drain, remove and replace.");
    public static final Topic<String, byte[]> NODE_DELETION_REQUESTED_DLQ = deadLetters(
            NODE_DELETION_REQUESTED, PROVISIONER, "Node deletion requests that could not be used, with reason.");
    public static final Topic<PoolKey, NodeChangeRequested> NODE_CHANGE_REQUESTED = new Topic<>(
            "node-change-requested",
            KeyFormat.POOL,
            ValueFormat.json(NodeChangeRequested.class),
            RecordChecks::changeRequested,
            DELETED,
            WEEK,
            API + " (REST: kubectl cordon, label, annotate, taint, drain)",
            KEY_PARTITION,
            "Inbound: a user's cordon, labels, annotations, taints or eviction of one node.");
    public static final Topic<String, byte[]> NODE_CHANGE_REQUESTED_DLQ = deadLetters(
            NODE_CHANGE_REQUESTED, PROVISIONER, "Node change requests that could not be used, with reason.");

    public static final Topic<PoolKey, CloudEvent<Workload>> WORKLOAD_PENDING = new Topic<>(
            "workload-pending",
            KeyFormat.WORKLOAD,
            Workloads.FORMAT,
            Workloads.CHECK,
            DELETED,
            WEEK,
            "platform teams (a cluster's scheduler), " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: WorkloadPending / WorkloadScheduled / WorkloadGone CloudEvents, pods waiting for nodes.");
    public static final Topic<String, byte[]> WORKLOAD_PENDING_DLQ =
            deadLetters(WORKLOAD_PENDING, PROVISIONER, "Workloads that could not be used, with reason.");
    public static final Topic<PoolKey, WorkloadStatus> WORKLOAD_STATUS = new Topic<>(
            "workload-status",
            KeyFormat.WORKLOAD,
            ValueFormat.json(WorkloadStatus.class),
            RecordChecks::workloadStatus,
            COMPACTED,
            FOREVER,
            PROVISIONER,
            KEY_PARTITION,
            "The demand planner's verdict on each pending workload; tombstone once it is gone.");
    public static final Topic<ZoneTypeKey, FleetAvailability> FLEET_AVAILABILITY = new Topic<>(
            "fleet-availability",
            KeyFormat.ZONE_TYPE,
            ValueFormat.json(FleetAvailability.class),
            RecordChecks::availability,
            COMPACTED,
            FOREVER,
            CAPACITY,
            KEY_PARTITION,
            "Total, free and queued machines of each capacity ledger, written when they change.");
    public static final Topic<String, PoolOffer> POOL_OFFERED = new Topic<>(
            "pool-offered",
            KeyFormat.name("<org>"),
            ValueFormat.json(PoolOffer.class),
            RecordChecks::poolOffer,
            DELETED,
            WEEK,
            PROVISIONER,
            KEY_PARTITION,
            "What each autoscaling pool offers pending workloads, keyed by org for the demand planner.");
    public static final Topic<PoolKey, PoolDemand> POOL_DEMAND_PLANNED = new Topic<>(
            "pool-demand-planned",
            KeyFormat.POOL,
            ValueFormat.json(PoolDemand.class),
            RecordChecks::poolDemand,
            DELETED,
            WEEK,
            PROVISIONER,
            KEY_PARTITION,
            "The pending demand the demand planner gives each autoscaling pool.");

    public static final Topic<String, JsonNode> AUDIT_EVENTS = new Topic<>(
            "audit-events",
            KeyFormat.name("<org>, or " + AuditKeys.UNAUTHENTICATED),
            ValueFormat.json(JsonNode.class),
            RecordChecks::auditEvent,
            DELETED,
            AUDIT_RETENTION,
            "every service",
            KEY_PARTITION,
            "The audit trail: one Kubernetes audit event per write, REST and topic alike, refusals summarized.");

    /** Records a service could not read from an internal topic (see {@link DeadLetters}). */
    public static Topic<String, byte[]> serviceDeadLetters(String service) {
        return new Topic<>(
                DeadLetters.serviceTopic(service),
                KeyFormat.AS_RECEIVED,
                ValueFormat.raw(),
                RecordCheck.none(),
                DELETED,
                FORTNIGHT,
                service,
                KEY_PARTITION,
                "Internal records " + service + " could not read, with the reason in headers.");
    }

    private static Topic<String, byte[]> deadLetters(Topic<?, ?> of, String owner, String description) {
        return new Topic<>(
                of.deadLetterName(),
                KeyFormat.AS_RECEIVED,
                ValueFormat.raw(),
                RecordCheck.none(),
                DELETED,
                FORTNIGHT,
                owner,
                KEY_PARTITION,
                description);
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
