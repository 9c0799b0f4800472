package com.coreweave.nodepool.quota.streams;

/** The names of the quota-service's state stores (the ledgers are also read by interactive queries). */
public final class StoreNames {

  private StoreNames() {
  }

  /** {@code <org>/<pool>} → {@code PoolRoute}: which quota a pool draws on, so its tombstone can be routed there. */
  public static final String POOL_ROUTES = "pool-routes";
  /** {@code <org>/<zone>/<instanceType>} → {@code QuotaLedger}: the limit and every pool that draws on it. */
  public static final String QUOTA_LEDGERS = "quota-ledgers";
}
