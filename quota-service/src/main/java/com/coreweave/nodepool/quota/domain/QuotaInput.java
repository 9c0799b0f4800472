package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import java.time.Instant;

/**
 * Everything that changes one quota ledger ({@code <org>/<zone>/<instanceType>}); both its topics,
 * {@code quota-demanded} and {@code quota-limit-set}, are keyed by quota.
 */
public sealed interface QuotaInput {

    /** The pool's accepted state changed (created, spec changed, validated again, deletion started). */
    record PoolChanged(PoolDemand demand) implements QuotaInput {}

    /** The pool incarnation {@code uid} is gone (deleted). */
    record PoolGone(String pool, String uid) implements QuotaInput {}

    /** An operator set the quota. */
    record LimitSet(int maxNodes, Instant setAt) implements QuotaInput {}

    /** An operator removed the quota. */
    record LimitRemoved() implements QuotaInput {}

    /** The input a {@code quota-demanded} record stands for. */
    static QuotaInput ofDemand(QuotaDemanded demanded) {
        return demanded.gone()
                ? new PoolGone(demanded.pool().key().toString(), demanded.pool().uid())
                : new PoolChanged(PoolDemand.of(demanded));
    }

    /** The input a {@code quota-limit-set} record stands for (a tombstone removes the quota). */
    static QuotaInput ofLimit(QuotaLimit limit) {
        return limit == null ? new LimitRemoved() : new LimitSet(limit.maxNodes(), limit.setAt());
    }
}
