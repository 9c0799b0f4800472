package com.coreweave.nodepool.capacity.streams;

/** The names of the capacity-service's state stores (also used by interactive queries). */
public final class StoreNames {

  private StoreNames() {
  }

  /** {@code <org>/<pool>} → {@code PoolRoute}: which ledger holds a pool, so its quota tombstone can be routed. */
  public static final String POOL_ROUTES = "pool-routes";
  /**
   * The ledgers of every zone × type ({@code LedgerRecord}s): under {@code <zone>/<instanceType>} its head, under
   * {@code <zone>/<instanceType>/...} one record per pool, machine out of service and remembered fleet change.
   */
  public static final String LEDGERS = "ledgers";
}
