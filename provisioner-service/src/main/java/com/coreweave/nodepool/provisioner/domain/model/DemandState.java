package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolOffer;

/**
 * What a pool keeps of the demand planner: the pending demand it was last given, the offer it last sent the planner
 * (sent again only when it changes), and the last reason it recorded for not scaling up (so {@code NotTriggerScaleUp}
 * is recorded once per change of verdict, not per input), and the target it raised for demand while its nodes are not
 * all there yet ({@code raisedTo}, 0 for none): only that target is lowered again when demand goes, never one a user
 * set.
 */
public record DemandState(PoolDemand demand, PoolOffer offered, String verdict, int raisedTo) {

    public static final DemandState NONE = new DemandState(null, null, null, 0);

    /** The nodes the pool's pending workloads need; 0 without demand. */
    public int pendingNodes() {
        return demand == null ? 0 : demand.nodes();
    }

    public DemandState withDemand(PoolDemand next) {
        return new DemandState(next, offered, verdict, raisedTo);
    }

    public DemandState withOffered(PoolOffer next) {
        return new DemandState(demand, next, verdict, raisedTo);
    }

    public DemandState withVerdict(String next) {
        return new DemandState(demand, offered, next, raisedTo);
    }

    public DemandState withRaisedTo(int next) {
        return new DemandState(demand, offered, verdict, next);
    }
}
