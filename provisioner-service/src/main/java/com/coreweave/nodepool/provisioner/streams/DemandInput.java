package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.Workload;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What reaches the demand planner about one org, keyed {@code <org>}: a workload's change ({@code type} is the
 * CloudEvent's: pending, scheduled or gone) or a pool's offer. One record shape, so that workloads re-keyed by org pass
 * the repartition topic as plain JSON.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record DemandInput(String type, Workload workload, PoolOffer offer) {

    static DemandInput workload(String type, Workload workload) {
        return new DemandInput(type, workload, null);
    }

    static DemandInput offer(PoolOffer offer) {
        return new DemandInput(null, null, offer);
    }
}
