package com.coreweave.nodepool.capacity.streams;

/** The names of the capacity-service's state stores (also used by interactive queries). */
public final class StoreNames {

    private StoreNames() {}

    /**
     * The ledgers of every zone × type ({@code LedgerRecord}s): under {@code <zone>/<instanceType>} its head, under
     * {@code <zone>/<instanceType>/...} one record per pool, machine out of service and remembered fleet change.
     */
    public static final String LEDGERS = "ledgers";
}
