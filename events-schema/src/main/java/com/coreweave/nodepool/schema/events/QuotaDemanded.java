package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * What one pool asks of its org's quota for a zone and instance type ({@code quota-demanded}, keyed
 * {@code <org>/<zone>/<instanceType>}, so the quota's ledger reads it without re-keying): the incarnation and
 * generation in force ({@code pool}), how many nodes it asks for, whether it is checked at all (an invalid or deleting
 * pool is not), or, {@code gone}, that this incarnation is deleted and holds nothing any more. The api-service writes
 * it with every accepted pool it writes, and with the pool's tombstone.
 */
public record QuotaDemanded(PoolRef pool, int requested, boolean valid, boolean deleting, boolean gone) {

    /** The demand of the generation in force: an invalid later generation keeps the last valid one's. */
    public static QuotaDemanded of(NodePoolAccepted accepted) {
        NodePoolAccepted inForce = accepted.inForce();
        return new QuotaDemanded(
                PoolRef.of(inForce),
                inForce.nodePool().spec().target(),
                inForce.validation().valid(),
                inForce.deleting(),
                false);
    }

    /** The pool incarnation {@code pool} is gone. */
    public static QuotaDemanded gone(PoolRef pool) {
        return new QuotaDemanded(pool, 0, false, true, true);
    }

    /** The quota the pool draws on: its org, zone and instance type. */
    @JsonIgnore
    public QuotaKey quotaKey() {
        return pool.quotaKey();
    }
}
