package com.coreweave.nodepool.capacity.domain;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the input being applied has changed in a ledger: each pool, grant and machine as it was before its first change,
 * how many machines each pool held before its first grant or release, the head's counters and the remembered fleet
 * changes as they were at the start. From it the ledger writes only what changed, or undoes all of it; what an input
 * did to a pool costs what it changed, not what the pool holds.
 */
final class LedgerChanges {

    /** A grant before its first change: the pool it is of, and what the pool held under it (null: nothing). */
    record GrantBefore(String pool, Holding holding) {}

    /** Pools before their first change; null: the pool was not in the ledger. */
    final Map<String, PoolDemand> pools = new HashMap<>();
    /** Grants before their first change, by grant id. */
    final Map<Long, GrantBefore> grants = new HashMap<>();
    /** How many machines each pool held before its first grant or release. */
    final Map<String, Integer> heldBefore = new HashMap<>();
    /** Why a pool read back was unsound before this input forgot its grants; null: it was sound. */
    final Map<String, String> unsound = new HashMap<>();
    /** Machines out of service before their first change; null: the machine was not. */
    final Map<Integer, Machine.Status> machines = new HashMap<>();

    long lastGrantId;
    long lastTicket;
    int machineCount;
    long fleetChangesRecorded;
    /** The remembered fleet changes before the first was added; null while none was. */
    List<FleetOutcome> fleetChanges;

    void begin(long grantId, long ticket, int machines, long changesRecorded) {
        lastGrantId = grantId;
        lastTicket = ticket;
        machineCount = machines;
        fleetChangesRecorded = changesRecorded;
    }

    // Null values say "was not" here, so a key is recorded only when absent, not when mapped to null.

    void pool(String pool, PoolDemand before) {
        if (!pools.containsKey(pool)) {
            pools.put(pool, before);
        }
    }

    void grant(String pool, long grantId, Holding before) {
        grants.putIfAbsent(grantId, new GrantBefore(pool, before));
    }

    /** The pool gets or gives up a machine; it held {@code count} until now. */
    void held(String pool, int count) {
        heldBefore.putIfAbsent(pool, count);
    }

    void unsound(String pool, String before) {
        if (!unsound.containsKey(pool)) {
            unsound.put(pool, before);
        }
    }

    void machine(int machine, Machine.Status before) {
        if (!machines.containsKey(machine)) {
            machines.put(machine, before);
        }
    }

    void fleetChanges(Collection<FleetOutcome> before) {
        if (fleetChanges == null) {
            fleetChanges = List.copyOf(before);
        }
    }

    void clear() {
        pools.clear();
        grants.clear();
        heldBefore.clear();
        unsound.clear();
        machines.clear();
        fleetChanges = null;
    }
}
