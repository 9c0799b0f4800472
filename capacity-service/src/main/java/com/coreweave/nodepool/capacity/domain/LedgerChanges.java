package com.coreweave.nodepool.capacity.domain;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * One input's changes to a ledger, between {@link #begin} and {@link #commit} or {@link #rollback}: each pool, grant
 * and machine as it was before its first change, how many machines each pool held before its first grant or release,
 * the head and the remembered fleet changes as they were at the start. From it the ledger writes only what changed, or
 * undoes all of it; what an input did to a pool costs what it changed, not what the pool holds.
 */
final class LedgerChanges {

    /** A grant before its first change: the pool it is of, and what the pool held under it (null: nothing). */
    private record GrantBefore(String pool, Holding holding) {}

    private final LedgerState state;
    private final RememberedFleetChanges fleet;

    /** Pools before their first change; null: the pool was not in the ledger. */
    private final Map<String, PoolDemand> pools = new HashMap<>();
    /** Grants before their first change, by grant id. */
    private final Map<Long, GrantBefore> grants = new HashMap<>();
    /** How many machines each pool held before its first grant or release. */
    private final Map<String, Integer> heldBefore = new HashMap<>();
    /** Why a pool read back was unsound before this input forgot its grants; null: it was sound. */
    private final Map<String, String> unsound = new HashMap<>();
    /** Machines out of service before their first change; null: the machine was not. */
    private final Map<Integer, Machine.Status> machines = new HashMap<>();
    /** The head's counters at the start. */
    private LedgerHead head;
    /** The remembered fleet changes before the first was added; null while none was. */
    private RememberedFleetChanges.Before fleetBefore;

    LedgerChanges(LedgerState state, RememberedFleetChanges fleet) {
        this.state = state;
        this.fleet = fleet;
    }

    void begin() {
        head = state.head(fleet.recorded());
    }

    /** The pools this input has changed so far: their demand, or what they hold. */
    Set<String> touched() {
        Set<String> touched = new HashSet<>(pools.keySet());
        touched.addAll(heldBefore.keySet());
        return touched;
    }

    /** A pool as it was before this input (null: it was not in the ledger). */
    PoolDemand before(String pool) {
        return pools.containsKey(pool) ? pools.get(pool) : state.pool(pool);
    }

    /** How many machines a pool held before this input. */
    int heldBefore(String pool) {
        return heldBefore.getOrDefault(pool, state.heldCount(pool));
    }

    /** Whether this input granted the pool a machine or ended one of its grants. */
    boolean grantsChanged(String pool) {
        return heldBefore.containsKey(pool);
    }

    long nextGrantId() {
        return state.nextGrantId();
    }

    long nextTicket() {
        return state.nextTicket();
    }

    // Null values say "was not" here, so a key is recorded only when absent, not when mapped to null.

    /** Sets a pool's demand (null: forgets it, once it holds nothing). */
    void putPool(String pool, PoolDemand next) {
        if (next != null) {
            requireSound(pool);
        }
        if (!pools.containsKey(pool)) {
            pools.put(pool, state.pool(pool));
        }
        state.replace(pool, next);
    }

    /** Grants a pool a machine, which must be a free one of the ledger: no machine is ever held twice. */
    void grant(String pool, Holding holding) {
        requireSound(pool);
        if (!state.index().free(holding.machine())) {
            throw new IllegalStateException("machine " + state.machineName(holding.machine()) + " cannot be granted to "
                    + pool + ": it is " + state.status(holding.machine()));
        }
        changeGrant(pool, holding.grantId(), holding);
    }

    /** Ends one of a pool's grants. */
    void endGrant(String pool, long grantId) {
        requireSound(pool);
        changeGrant(pool, grantId, null);
    }

    /** Marks a machine a pool holds as asked back. */
    void reclaim(String pool, long grantId, Machine.Reclaim why) {
        requireSound(pool);
        changeGrant(pool, grantId, state.holding(pool, grantId).reclaimed(why));
    }

    /** Ends every grant of a pool, sound or not (it is forgotten, or another incarnation takes its place). */
    List<Holding> endAll(String pool) {
        List<Holding> ended = List.copyOf(state.held(pool));
        String why = state.forgetUnsound(pool);
        if (why != null && !unsound.containsKey(pool)) {
            unsound.put(pool, why);
        }
        ended.forEach(h -> changeGrant(pool, h.grantId(), null));
        return ended;
    }

    /** Sets what a pool holds under a grant (null: ends it). */
    private void changeGrant(String pool, long grantId, Holding next) {
        Holding previous = state.holding(pool, grantId);
        grants.putIfAbsent(grantId, new GrantBefore(pool, previous));
        if ((previous == null) != (next == null)) {
            heldBefore.putIfAbsent(pool, state.heldCount(pool));
        }
        state.setGrant(pool, grantId, next);
    }

    void setOutOfService(int machine, Machine.Status status) {
        if (!machines.containsKey(machine)) {
            machines.put(machine, state.outOfService(machine));
        }
        state.setOutOfService(machine, status);
    }

    /** Adds {@code count} fresh machines after the last one and returns the index of the first. */
    int addMachines(int count) {
        return state.addMachines(count);
    }

    /** Remembers an operator change's outcome, forgetting the oldest beyond {@code remembered}. */
    void remember(FleetOutcome outcome, int remembered) {
        if (fleetBefore == null) {
            fleetBefore = fleet.before();
        }
        fleet.remember(outcome, remembered);
    }

    /** Ends the input: the records it changed (a null value deletes), with the head if anything changed at all. */
    LedgerWrites commit() {
        TreeMap<String, LedgerRecord> writes = new TreeMap<>();
        pools.forEach((pool, was) -> {
            PoolDemand now = state.pool(pool);
            if (!Objects.equals(was, now)) {
                writes.put(LedgerKeys.pool(state.key(), pool), now);
            }
        });
        grants.forEach((grantId, before) -> {
            Holding now = state.holding(before.pool(), grantId);
            if (!Objects.equals(before.holding(), now)) {
                writes.put(
                        LedgerKeys.held(state.key(), before.pool(), grantId),
                        now == null ? null : HeldMachine.of(before.pool(), now));
            }
        });
        machines.forEach((machine, was) -> {
            Machine.Status now = state.outOfService(machine);
            if (was != now) {
                writes.put(
                        LedgerKeys.machine(state.key(), machine), now == null ? null : new OutOfService(machine, now));
            }
        });
        if (fleetBefore != null) {
            fleet.writesSince(fleetBefore, state.key(), writes);
        }
        // The sequence does not move within an input, so the head differs exactly when one of its counters does.
        if (!writes.isEmpty() || !head.equals(state.head(fleet.recorded()))) {
            state.advanceSequence();
            writes.put(LedgerKeys.head(state.key()), state.head(fleet.recorded()));
        }
        clear();
        return new LedgerWrites(writes);
    }

    /** Undoes everything since {@link #begin}. */
    void rollback() {
        Set<Integer> touchedMachines = new HashSet<>(machines.keySet());
        grants.forEach((grantId, before) -> {
            Holding now = state.holding(before.pool(), grantId);
            touchedMachines.add((now != null ? now : before.holding()).machine());
            state.setGrant(before.pool(), grantId, before.holding());
        });
        pools.forEach(state::replace);
        state.restoreUnsound(unsound);
        machines.forEach(state::setOutOfService);
        for (int i = head.machineCount() + 1; i <= state.machineCount(); i++) {
            touchedMachines.add(i);
        }
        state.restoreCounters(head);
        if (fleetBefore != null) {
            fleet.restore(fleetBefore);
        }
        touchedMachines.forEach(state::refreshFree);
        clear();
    }

    private void requireSound(String pool) {
        String why = state.unsound(pool);
        if (why != null) {
            throw new IllegalStateException(why);
        }
    }

    private void clear() {
        pools.clear();
        grants.clear();
        heldBefore.clear();
        unsound.clear();
        machines.clear();
        fleetBefore = null;
        head = null;
    }
}
