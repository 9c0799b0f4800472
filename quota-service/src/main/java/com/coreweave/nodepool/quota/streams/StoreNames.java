package com.coreweave.nodepool.quota.streams;

/** The names of the quota-service's state stores (the ledgers are also read by interactive queries). */
public final class StoreNames {

    private StoreNames() {}

    /**
     * Quota ledgers ({@code QuotaRecord}s): under {@code <org>/<zone>/<instanceType>} the limit, under
     * {@code <org>/<zone>/<instanceType>/p/<org>/<pool>} each pool that draws on it.
     */
    public static final String QUOTA_LEDGERS = "quota-ledgers";
}
