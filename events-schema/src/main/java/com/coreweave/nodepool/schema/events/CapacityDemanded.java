package com.coreweave.nodepool.schema.events;

/**
 * What one pool asks of the capacity ledger of its zone and instance type ({@code capacity-demanded}, keyed
 * {@code <zone>/<instanceType>}, so the ledger reads it without re-keying): the quota-service's decision for the pool
 * ({@code quota}, whose {@code admittedNodes} is the demand), or that its incarnation {@code goneUid} left the quota's
 * ledger (deleted, or re-created elsewhere) and holds nothing any more. {@code pool} is {@code <org>/<pool>}.
 */
public record CapacityDemanded(String pool, QuotaChecked quota, String goneUid) {

    /** The quota decision for {@code quota}'s pool. */
    public static CapacityDemanded of(QuotaChecked quota) {
        return new CapacityDemanded(quota.pool().key().toString(), quota, null);
    }

    /** The incarnation {@code uid} of {@code pool} is gone. */
    public static CapacityDemanded gone(String pool, String uid) {
        return new CapacityDemanded(pool, null, uid);
    }
}
