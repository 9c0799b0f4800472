package com.coreweave.nodepool.quota.streams;

/** Which quota ledger holds a pool's incarnation {@code uid}. */
record PoolRoute(String quotaKey, String uid) {
}
