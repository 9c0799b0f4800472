package com.coreweave.nodepool.schema.events;

/**
 * The gatekeepers' last word on a pool, as the provisioner acted on it ({@link NodeFact.NodePoolReconciled}): the
 * {@code Quota} and {@code Capacity} conditions' reasons (null: no such condition) and messages, and how many nodes
 * wait in capacity's queue. They travel with the pool's nodes, quota to capacity to the provisioner, so the pool's
 * status learns them in the commit that brings the nodes they led to.
 */
public record Verdicts(
        String quotaReason, String quotaMessage, String capacityReason, String capacityMessage, int queuedNodes) {

    /** The verdicts {@code capacity} carries: its own and the quota decision it was made on. */
    public static Verdicts of(CapacityChecked capacity) {
        return new Verdicts(
                capacity.quotaReason(),
                capacity.quotaMessage(),
                capacity.reason(),
                capacity.message(),
                capacity.queuedNodes());
    }
}
