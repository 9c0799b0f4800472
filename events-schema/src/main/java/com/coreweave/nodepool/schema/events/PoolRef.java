package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * Which incarnation of which pool a fact is about, and what the gatekeepers need to know of it. Facts about an older
 * incarnation (another uid) of a re-created pool are ignored by their readers.
 */
public record PoolRef(
        String org, String pool, String uid, long generation, String zone, String instanceType, String computeClass) {

    @JsonIgnore
    public PoolKey key() {
        return new PoolKey(org, pool);
    }

    /** The quota the pool draws on: its org, zone and instance type. */
    @JsonIgnore
    public QuotaKey quotaKey() {
        return new QuotaKey(org, zone, instanceType);
    }

    /** The capacity ledger the pool draws on: its zone and instance type. */
    @JsonIgnore
    public ZoneTypeKey ledgerKey() {
        return new ZoneTypeKey(zone, instanceType);
    }

    @JsonIgnore
    public boolean spot() {
        return "spot".equalsIgnoreCase(computeClass);
    }

    public static PoolRef of(NodePoolAccepted accepted) {
        var spec = accepted.nodePool().spec();
        return new PoolRef(
                accepted.org(),
                accepted.nodePool().name(),
                accepted.uid(),
                accepted.generation(),
                spec.region(),
                spec.instanceType(),
                spec.computeClass());
    }
}
