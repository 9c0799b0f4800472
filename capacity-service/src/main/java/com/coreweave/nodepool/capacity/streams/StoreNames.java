package com.coreweave.nodepool.capacity.streams;

/** The names of the capacity-service's state stores (also used by interactive queries). */
public final class StoreNames {

  private StoreNames() {
  }

  /** {@code <org>/<pool>} → {@code PoolRoute}: which ledger holds a pool, so its quota tombstone can be routed. */
  public static final String POOL_ROUTES = "pool-routes";
  /** {@code <zone>/<instanceType>} → {@code LedgerState}: machines, demand and queue of one zone and type. */
  public static final String LEDGERS = "ledgers";
}
