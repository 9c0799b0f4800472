package com.coreweave.nodepool.schema.events;

import java.time.Instant;

/** An org's quota for one zone and instance type (compacted {@code quota-limit-set}); a tombstone removes it. */
public record QuotaLimit(String org, String zone, String instanceType, int maxNodes, Instant setAt) {

    public QuotaKey key() {
        return new QuotaKey(org, zone, instanceType);
    }
}
