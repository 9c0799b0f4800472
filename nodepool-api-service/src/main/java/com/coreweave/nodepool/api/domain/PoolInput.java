package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvents;

/** What reaches the pool processor about one pool, from each of the topics it reads. */
public sealed interface PoolInput {

    /** A create, update or delete of the pool from {@code nodepool-requested}, read and checked. */
    record Requested(PoolRequest request) implements PoolInput {}

    /**
     * The provisioner's nodes of the pool (with quota's and capacity's verdicts) from {@code nodepool-nodes-changed}.
     */
    record NodesChanged(NodeFact fact) implements PoolInput {}

    /** A step of a spot node's preemption from {@code spot-preemption-progressed}. */
    record PreemptionProgressed(PreemptionFact fact) implements PoolInput {}

    /** Kubernetes Events the other services recorded about the pool, from {@code nodepool-event-recorded}. */
    record EventsRecorded(RecordedEvents recorded) implements PoolInput {}
}
