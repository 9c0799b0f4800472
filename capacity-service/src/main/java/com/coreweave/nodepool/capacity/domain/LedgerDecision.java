package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.util.List;

/**
 * What one input did to a ledger: the records to write ({@code writes}, empty when it changed nothing) and what it
 * tells the world: the {@code capacity-checked} of every pool whose allocation changed (null: the pool is forgotten, a
 * tombstone), spot reclaims, events, and the outcome of an operator change (null for other inputs).
 */
public record LedgerDecision(
        LedgerWrites writes,
        List<PoolUpdate> capacity,
        List<SpotReclaimRequested> reclaims,
        List<RecordedEvent> events,
        FleetOutcome fleetOutcome) {

    /**
     * A pool's new allocation, keyed {@code <org>/<pool>}; {@code checked} null is a tombstone. {@code checked} comes
     * without its grants (null): the record lists those the ledger holds for the pool when it is written
     * ({@link Ledger#withGrants}), once per commit however many inputs of the commit changed them.
     */
    public record PoolUpdate(String pool, CapacityChecked checked) {}

    /** Whether the input changed the ledger, so that its records are written. */
    public boolean changed() {
        return !writes.isEmpty();
    }
}
