package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * What the quota check needs of an accepted pool: which incarnation it is, how many nodes it asks for
 * ({@code spec.targetNodes} of the generation in force), and whether it is checked at all (a pool that is invalid or
 * being deleted is not).
 */
public record PoolDemand(PoolRef ref, int requested, boolean valid, boolean deleting) {

    /** The demand a {@code quota-demanded} record carries. */
    public static PoolDemand of(QuotaDemanded demanded) {
        return new PoolDemand(demanded.pool(), demanded.requested(), demanded.valid(), demanded.deleting());
    }

    /** The {@code <org>/<pool>} key of the pool. */
    @JsonIgnore
    public String pool() {
        return ref.key().toString();
    }

    /** The quota the pool draws on. */
    @JsonIgnore
    public QuotaKey quotaKey() {
        return ref.quotaKey();
    }

    /** Only a valid pool that is not being deleted is checked against the quota and may hold nodes. */
    @JsonIgnore
    public boolean checked() {
        return valid && !deleting;
    }
}
