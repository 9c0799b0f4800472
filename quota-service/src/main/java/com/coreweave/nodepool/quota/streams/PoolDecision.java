package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.schema.events.QuotaChecked;

/**
 * A ledger's word about one pool on its way back to the pool's own partition: its new decision, or that the
 * incarnation {@code goneUid} left the ledger.
 */
record PoolDecision(QuotaChecked checked, String goneUid) {
}
