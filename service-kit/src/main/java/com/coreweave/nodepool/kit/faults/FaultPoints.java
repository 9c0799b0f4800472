package com.coreweave.nodepool.kit.faults;

import java.util.Set;

/** The fault points a service checks, which it produces as a bean so that its {@code /admin/faults} can arm them. */
public record FaultPoints(Set<String> names) {

    public static FaultPoints of(String... names) {
        return new FaultPoints(Set.of(names));
    }
}
