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
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.events.WorkloadStatus;

/**
 * The topics of pending workloads: the workloads, the demand planner's verdicts, the pools' offers and their planned
 * demand. {@link Topics} lists them.
 */
final class WorkloadTopics {

    private WorkloadTopics() {}

    static final Topic<PoolKey, CloudEvent<Workload>> WORKLOAD_PENDING = new Topic<>(
            "workload-pending",
            KeyFormat.WORKLOAD,
            Workloads.FORMAT,
            Workloads.CHECK,
            DELETED,
            WEEK,
            "platform teams (a cluster's scheduler), " + API + " (REST)",
            ANY_PARTITION,
            "Inbound: WorkloadPending / WorkloadScheduled / WorkloadGone CloudEvents, pods waiting for nodes.");
    static final Topic<String, byte[]> WORKLOAD_PENDING_DLQ =
            TopicTraits.deadLetters(WORKLOAD_PENDING, PROVISIONER, "Workloads that could not be used, with reason.");
    static final Topic<PoolKey, WorkloadStatus> WORKLOAD_STATUS = new Topic<>(
            "workload-status",
            KeyFormat.WORKLOAD,
            ValueFormat.json(WorkloadStatus.class),
            WorkloadRecordChecks::workloadStatus,
            COMPACTED,
            FOREVER,
            PROVISIONER,
            KEY_PARTITION,
            "The demand planner's verdict on each pending workload; tombstone once it is gone.");
    static final Topic<String, PoolOffer> POOL_OFFERED = new Topic<>(
            "pool-offered",
            KeyFormat.name("<org>"),
            ValueFormat.json(PoolOffer.class),
            WorkloadRecordChecks::poolOffer,
            DELETED,
            WEEK,
            PROVISIONER,
            KEY_PARTITION,
            "What each autoscaling pool offers pending workloads, keyed by org for the demand planner.");
    static final Topic<PoolKey, PoolDemand> POOL_DEMAND_PLANNED = new Topic<>(
            "pool-demand-planned",
            KeyFormat.POOL,
            ValueFormat.json(PoolDemand.class),
            WorkloadRecordChecks::poolDemand,
            DELETED,
            WEEK,
            PROVISIONER,
            KEY_PARTITION,
            "The pending demand the demand planner gives each autoscaling pool.");
}
