package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import java.util.List;

/**
 * A pool after one input or timer: its new state (null: forget the pool), the node facts to publish in order, the
 * events to record, and the autoscaler's requests to change the pool's {@code targetNodes} (for
 * {@code nodepool-requested}), and the pool's new offer to the demand planner, if it changed (for
 * {@code pool-offered}).
 */
public record Outcome(
        PoolState state,
        List<NodeFact> facts,
        List<RecordedEvent> events,
        List<CloudEvent<NodePoolRequested>> requests,
        PoolOffer offer) {

    /** An outcome that offers the demand planner nothing new. */
    public Outcome(
            PoolState state,
            List<NodeFact> facts,
            List<RecordedEvent> events,
            List<CloudEvent<NodePoolRequested>> requests) {
        this(state, facts, events, requests, null);
    }

    public static Outcome unchanged(PoolState state) {
        return new Outcome(state, List.of(), List.of(), List.of());
    }
}
