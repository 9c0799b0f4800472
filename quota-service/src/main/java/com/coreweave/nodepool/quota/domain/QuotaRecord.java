package com.coreweave.nodepool.quota.domain;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * What the {@code quota-ledgers} store holds of one quota ledger, one record per key ({@link QuotaRecords}): its head
 * (the limit) and one record per pool, so an input writes the pools it changed, not every pool of the quota.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = QuotaHead.class, name = "Head"),
    @JsonSubTypes.Type(value = QuotaRecord.Pool.class, name = "Pool")
})
public sealed interface QuotaRecord permits QuotaHead, QuotaRecord.Pool {

    /** One pool of the ledger. */
    record Pool(PoolEntry entry) implements QuotaRecord {}
}
