package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.kit.streams.io.Interpretation;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Rejection.Code;

/**
 * What the capacity-service refuses beyond what its topics' registry entries check: demand or fleet changes for an
 * instance type where it is not offered cannot be served. Refused records go to {@code capacity-service-dlq}.
 */
final class Readers {

    private Readers() {}

    /** Pools' demands (quota decisions and departures). */
    static Interpretation<CapacityDemanded, CapacityDemanded> capacityDemanded(Catalogue catalogue) {
        return (key, demanded, raw, origin) -> {
            QuotaChecked checked = demanded.quota();
            if (checked != null && checked.admittedNodes() > 0) {
                catalogue
                        .refusal(checked.pool().zone(), checked.pool().instanceType())
                        .ifPresent(why -> {
                            throw new Rejection(
                                    Code.INSTANCE_TYPE_NOT_IN_ZONE,
                                    checked.admittedNodes() + " node(s) admitted, but " + why);
                        });
            }
            return demanded;
        };
    }

    /** Operators' fleet changes, for a type offered in that zone. */
    static Interpretation<FleetChangeRequested, FleetChangeRequested> fleetChanges(Catalogue catalogue) {
        return (key, change, raw, origin) -> {
            catalogue.refusal(change.zone(), change.instanceType()).ifPresent(why -> {
                throw new Rejection(Code.INSTANCE_TYPE_NOT_IN_ZONE, why);
            });
            return change;
        };
    }
}
