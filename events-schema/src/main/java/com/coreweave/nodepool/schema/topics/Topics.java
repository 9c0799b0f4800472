package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import io.fabric8.kubernetes.api.model.Event;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;

/** The typed registry of every topic; docs/topics.md describes the same list for people. */
public final class Topics {

  private Topics() {
  }

  private static final Duration WEEK = Duration.ofDays(7);
  private static final Duration FORTNIGHT = Duration.ofDays(14);
  private static final Duration DAY = Duration.ofDays(1);

  private static final String API = "nodepool-api-service";
  private static final String QUOTA = "quota-service";
  private static final String CAPACITY = "capacity-service";
  private static final String PROVISIONER = "provisioner-service";
  private static final String PREEMPTION = "preemption-service";
  private static final String POOL_KEY = "<org>/<pool>";

  public static final Topic<JsonNode> NODEPOOL_REQUESTED = new Topic<>("nodepool-requested", JsonNode.class, false,
      WEEK, "platform teams, " + API + " (REST)", POOL_KEY,
      "Inbound: NodePoolRequested CloudEvents (structured JSON), APPLY or DELETE.");
  public static final Topic<byte[]> NODEPOOL_REQUESTED_DLQ = new Topic<>("nodepool-requested-dlq", byte[].class,
      false, FORTNIGHT, API, POOL_KEY, "Requests that were refused, as received, with the reason in headers.");
  public static final Topic<RequestDecided> NODEPOOL_REQUEST_DECIDED = new Topic<>("nodepool-request-decided",
      RequestDecided.class, false, DAY, API, POOL_KEY,
      "The pool processor's answer to each request id, read by the REST call waiting for it.");
  public static final Topic<NodePoolAccepted> NODEPOOL_ACCEPTED = new Topic<>("nodepool-accepted",
      NodePoolAccepted.class, true, null, API, POOL_KEY,
      "The accepted pool: metadata, spec with defaults, validation; tombstone once deleted.");
  public static final Topic<QuotaLimit> QUOTA_LIMIT_SET = new Topic<>("quota-limit-set", QuotaLimit.class, true,
      null, QUOTA, "<org>/<zone>/<instanceType>", "Quota limits set by operators; tombstone removes one.");
  public static final Topic<QuotaChecked> QUOTA_CHECKED = new Topic<>("quota-checked", QuotaChecked.class, true,
      null, QUOTA, POOL_KEY, "Each pool's quota decision: admitted node count and the Quota reason.");
  public static final Topic<InstanceType> INSTANCE_TYPE_CATALOGUED = new Topic<>("instance-type-catalogued",
      InstanceType.class, true, null, CAPACITY, "<instanceType>", "The instance-type catalogue.");
  public static final Topic<FleetChangeRequested> FLEET_CHANGE_REQUESTED = new Topic<>("fleet-change-requested",
      FleetChangeRequested.class, false, FORTNIGHT, CAPACITY, "<zone>/<instanceType>",
      "Operators' fleet changes (machines added, removed, in maintenance, spot reclaim).");
  public static final Topic<CapacityChecked> CAPACITY_CHECKED = new Topic<>("capacity-checked",
      CapacityChecked.class, true, null, CAPACITY, POOL_KEY,
      "Each pool's allocation: granted machines, queued nodes and the Capacity reason.");
  public static final Topic<SpotReclaimRequested> SPOT_RECLAIM_REQUESTED = new Topic<>("spot-reclaim-requested",
      SpotReclaimRequested.class, false, WEEK, CAPACITY, POOL_KEY,
      "Spot nodes the capacity ledger needs back for reserved demand or an operator.");
  public static final Topic<NodeActivityReported> NODE_ACTIVITY_REPORTED = new Topic<>("node-activity-reported",
      NodeActivityReported.class, false, WEEK, "platform teams, " + API + " (REST)", POOL_KEY,
      "Inbound: nodes reported busy or idle.");
  public static final Topic<NodeFact> NODEPOOL_NODES_CHANGED = new Topic<>("nodepool-nodes-changed", NodeFact.class,
      false, WEEK, PROVISIONER, POOL_KEY, "Node lifecycle facts and per-pool reconcile summaries.");
  public static final Topic<PreemptionFact> SPOT_PREEMPTION_PROGRESSED = new Topic<>("spot-preemption-progressed",
      PreemptionFact.class, false, WEEK, PREEMPTION, POOL_KEY, "Spot preemption timeline steps.");
  public static final Topic<RecordedEvent> NODEPOOL_EVENT_RECORDED = new Topic<>("nodepool-event-recorded",
      RecordedEvent.class, false, WEEK, "every service", POOL_KEY,
      "CW* and spot events as each service records them; folded into nodepool-events.");
  public static final Topic<Event> NODEPOOL_EVENTS = new Topic<>("nodepool-events", Event.class, false,
      WEEK, API, POOL_KEY, "Outbound: Kubernetes Events (reason, type, message, involvedObject, count).");
  public static final Topic<NodePool> NODEPOOL_STATUS = new Topic<>("nodepool-status", NodePool.class, true, null,
      API, POOL_KEY, "Outbound: the whole materialized NodePool; tombstone on delete.");
  public static final Topic<NodeConfigurationRequested> NODEPOOL_CONFIGURATION_REQUESTED = new Topic<>(
      "nodepool-configuration-requested", NodeConfigurationRequested.class, false, WEEK,
      "platform teams, " + API + " (REST)", POOL_KEY,
      "Inbound: upgrade to the pending node configuration, roll back to a revision, reconfigure-reboot nodes.");
  public static final Topic<byte[]> NODEPOOL_CONFIGURATION_REQUESTED_DLQ = new Topic<>(
      "nodepool-configuration-requested-dlq", byte[].class, false, FORTNIGHT, PROVISIONER, POOL_KEY,
      "Configuration requests that could not be used, with reason.");
  public static final Topic<NodeReleasePublished> NODE_RELEASE_PUBLISHED = new Topic<>("node-release-published",
      NodeReleasePublished.class, true, null, PROVISIONER + " (admin REST)", "<releaseTrain>",
      "Upstream node image releases per release train, written to every partition.");
  public static final Topic<byte[]> NODE_ACTIVITY_REPORTED_DLQ = new Topic<>("node-activity-reported-dlq",
      byte[].class, false, FORTNIGHT, PROVISIONER, POOL_KEY, "Activity reports that could not be used, with reason.");

  /** Records a service could not read from an internal topic (see {@link DeadLetters}). */
  public static Topic<byte[]> serviceDeadLetters(String service) {
    return new Topic<>(DeadLetters.serviceTopic(service), byte[].class, false, FORTNIGHT, service, "as received",
        "Internal records " + service + " could not read, with the reason in headers.");
  }

  public static List<Topic<?>> all() {
    return List.of(NODEPOOL_REQUESTED, NODEPOOL_REQUESTED_DLQ, NODEPOOL_REQUEST_DECIDED, NODEPOOL_ACCEPTED,
        QUOTA_LIMIT_SET, QUOTA_CHECKED, INSTANCE_TYPE_CATALOGUED, FLEET_CHANGE_REQUESTED, CAPACITY_CHECKED,
        SPOT_RECLAIM_REQUESTED, NODE_ACTIVITY_REPORTED, NODE_ACTIVITY_REPORTED_DLQ, NODEPOOL_NODES_CHANGED,
        SPOT_PREEMPTION_PROGRESSED, NODEPOOL_EVENT_RECORDED, NODEPOOL_EVENTS, NODEPOOL_STATUS,
        NODEPOOL_CONFIGURATION_REQUESTED, NODEPOOL_CONFIGURATION_REQUESTED_DLQ, NODE_RELEASE_PUBLISHED);
  }
}
