package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import java.time.Instant;
import java.util.List;

/**
 * What the ledger did with one operator change. {@code code} is null when it was applied, else {@code NotFound},
 * {@code Conflict} or {@code Invalid} (the admin API answers 404, 409 or 422). {@code machines} are the machines it
 * touched (the first {@link #LISTED}, so remembered outcomes stay small; the counts are complete); {@code notRetired}
 * counts machines a shrink could not retire because pools hold them.
 */
public record FleetOutcome(
        String requestId,
        FleetChangeRequested.Operation operation,
        String code,
        String message,
        int added,
        int retired,
        int notRetired,
        List<String> machines,
        Instant at) {

    public static final int LISTED = 64;
    public static final String NOT_FOUND = "NotFound";
    public static final String CONFLICT = "Conflict";
    public static final String INVALID = "Invalid";

    public FleetOutcome {
        machines = machines.size() > LISTED ? List.copyOf(machines.subList(0, LISTED)) : List.copyOf(machines);
    }

    public boolean applied() {
        return code == null;
    }

    static FleetOutcome refused(FleetChangeRequested request, String code, String message, Instant at) {
        return new FleetOutcome(request.requestId(), request.operation(), code, message, 0, 0, 0, List.of(), at);
    }
}
