package com.coreweave.nodepool.schema.events;

import java.time.Instant;
import java.util.List;

/**
 * An operator's change to the fleet of one zone and instance type ({@code fleet-change-requested}, keyed
 * {@code <zone>/<instanceType>}), applied by the capacity ledger in order.
 *
 * <ul>
 *   <li>SET_SIZE: grow (new machines) or shrink (retire free machines) to {@code count} machines in service;
 *   <li>ADD: {@code count} new machines; REMOVE: retire the named machines (or {@code count} free ones);
 *   <li>MAINTENANCE / RETURN: take the named free machines out of service, or put them back;
 *   <li>RECLAIM_SPOT: take {@code count} nodes back from spot pools (capacity needed elsewhere).
 * </ul>
 */
public record FleetChangeRequested(
        String requestId,
        String zone,
        String instanceType,
        Operation operation,
        Integer count,
        List<String> machines,
        Instant requestedAt) {

    public enum Operation {
        SET_SIZE,
        ADD,
        REMOVE,
        MAINTENANCE,
        RETURN,
        RECLAIM_SPOT
    }

    public ZoneTypeKey key() {
        return new ZoneTypeKey(zone, instanceType);
    }
}
