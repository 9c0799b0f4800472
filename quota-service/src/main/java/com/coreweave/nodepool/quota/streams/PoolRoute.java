package com.coreweave.nodepool.quota.streams;

/**
 * Which quota ledger holds a pool's incarnation {@code uid}; {@code gone} once the pool was deleted (kept, so that a
 * pool re-created under the same name with another zone or type is known to have moved), and whether the
 * incarnation {@code moved} here from another ledger.
 */
record PoolRoute(String quotaKey, String uid, boolean gone, boolean moved) {

  PoolRoute deleted() {
    return new PoolRoute(quotaKey, uid, true, moved);
  }
}
