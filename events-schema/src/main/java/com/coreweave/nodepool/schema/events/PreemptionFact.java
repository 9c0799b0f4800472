package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;

/**
 * One step of a spot node's preemption timeline ({@code spot-preemption-progressed}, keyed {@code <org>/<pool>}),
 * written by the preemption-service: pending at T+0, in progress (drain) at T+2 min, preempted (removed) when drained
 * or at T+7 min.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "fact")
@JsonSubTypes({
    @JsonSubTypes.Type(value = PreemptionFact.PreemptionPending.class, name = "PreemptionPending"),
    @JsonSubTypes.Type(value = PreemptionFact.PreemptionInProgress.class, name = "PreemptionInProgress"),
    @JsonSubTypes.Type(value = PreemptionFact.NodePreempted.class, name = "NodePreempted")
})
public sealed interface PreemptionFact {

    String reclaimId();

    PoolRef pool();

    String node();

    /** T+0: cordon, label {@code qos.coreweave.cloud/pending-preemption=true}, Warning {@code Preemption pending}. */
    record PreemptionPending(
            String reclaimId, PoolRef pool, String node, Instant pendingAt, Instant drainAt, Instant removeBy)
            implements PreemptionFact {}

    /**
     * T+2 min: drain, label {@code qos.coreweave.cloud/evicted-at}, Warning {@code Preemption in progress}; workloads
     * get SIGTERM and {@code gracePeriodSeconds} before SIGKILL.
     */
    record PreemptionInProgress(
            String reclaimId, PoolRef pool, String node, Instant evictedAt, int gracePeriodSeconds, Instant removeBy)
            implements PreemptionFact {}

    /** The node left the pool: drained early or at the deadline ({@code cause} Drained or Deadline). */
    record NodePreempted(
            String reclaimId, PoolRef pool, String node, Instant pendingAt, Instant removedAt, String cause)
            implements PreemptionFact {}
}
