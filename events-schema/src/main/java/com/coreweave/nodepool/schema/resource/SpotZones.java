package com.coreweave.nodepool.schema.resource;

import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where spot capacity is offered: reference 004 supports spot pools in every General Access zone and for every instance
 * type but the Superchip ones. The other zones hold reserved capacity only.
 */
public final class SpotZones {

    /** The General Access zones of this platform, in name order. */
    public static final Set<String> GENERAL_ACCESS = Collections.unmodifiableSet(
            new TreeSet<>(Set.of("EU-SOUTH-04A", "US-CENTRAL-07A", "US-EAST-04A", "US-EAST-06A", "US-WEST-04A")));

    private SpotZones() {}

    /** Whether a spot pool of a type ({@code superchip} or not) may run in {@code zone}. */
    public static boolean offered(String zone, boolean superchip) {
        return !superchip && GENERAL_ACCESS.contains(zone);
    }
}
