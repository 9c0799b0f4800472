package com.coreweave.nodepool.capacity.streams;

/** Where a pool's demand went: the ledger key {@code <zone>/<instanceType>} and the pool incarnation. */
record PoolRoute(String ledger, String poolUid) {
}
