package com.coreweave.nodepool.schema.events;

/**
 * How many machines of one instance type in one zone the fleet has, how many are free and how many nodes pools wait for
 * ({@code fleet-availability}, compacted, keyed {@code <zone>/<instanceType>}): what the demand planner reads to choose
 * a pool that can be served and to fall back from one that cannot.
 */
public record FleetAvailability(String zone, String instanceType, int total, int free, int queued) {

    public ZoneTypeKey key() {
        return new ZoneTypeKey(zone, instanceType);
    }
}
