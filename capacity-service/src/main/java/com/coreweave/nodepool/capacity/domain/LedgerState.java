package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The stored state of one ledger in memory: the head's counters, every pool's demand, the machines each pool holds and
 * the machines out of service, with the indexes ({@link LedgerIndex}) that every change here keeps current. It does not
 * track what an input changed: {@link LedgerChanges} records each value before it changes it here.
 */
final class LedgerState {

    private final ZoneTypeKey key;
    private final String machinePrefix;
    private long sequence;
    private long lastGrantId;
    private long lastTicket;
    private int machineCount;
    private final TreeMap<String, PoolDemand> pools = new TreeMap<>();
    /** The machines each pool holds, by grant id: in the order they were granted. */
    private final Map<String, TreeMap<Long, Holding>> held = new HashMap<>();

    private final Map<Integer, Machine.Status> outOfService = new HashMap<>();
    private final LedgerIndex index = new LedgerIndex();
    /**
     * Pools read back holding a machine they cannot hold (not one of the ledger's, or one another pool holds), and why:
     * such a grant is listed but not counted, and every change of the pool fails until the pool is forgotten.
     */
    private final Map<String, String> unsound = new HashMap<>();
    /** The grants of unsound pools that the indexes do not count. */
    private final Set<Long> uncounted = new HashSet<>();

    /** The state of a ledger with its stored head (null: nothing stored yet), before its other records are loaded. */
    LedgerState(ZoneTypeKey key, LedgerHead head) {
        this.key = key;
        this.machinePrefix = Machine.prefix(key.zone(), key.instanceType());
        if (head != null) {
            sequence = head.sequence();
            lastGrantId = head.lastGrantId();
            lastTicket = head.lastTicket();
            machineCount = head.machineCount();
        }
    }

    /** Takes one stored record of a pool or a machine (the head and remembered fleet changes are not its own). */
    void load(LedgerRecord record) {
        switch (record) {
            case PoolDemand pool -> pools.put(pool.ref().key().toString(), pool);
            case HeldMachine machine -> holdings(machine.pool()).put(machine.grantId(), machine.holding());
            case OutOfService machine -> outOfService.put(machine.machine(), machine.status());
            case LedgerHead ignored -> {}
            case RememberedChange ignored -> {}
        }
    }

    /** The indexes of what was loaded. A grant that breaks the ledger's invariant makes its pool unsound. */
    void buildIndex() {
        // A pool and its machines leave the store in one write, so no machine is held by a pool the ledger lacks.
        held.keySet().retainAll(pools.keySet());
        pools.forEach((pool, demand) -> index.queue(pool, demand, 1));
        // In key and grant order, so that of two pools read back holding one machine, the same one is unsound each
        // time.
        pools.keySet()
                .forEach(pool -> held(pool).forEach(h -> {
                    if (h.machine() < 1 || h.machine() > machineCount || index.allocated(h.machine())) {
                        unsound.putIfAbsent(
                                pool,
                                pool + " holds " + machineName(h.machine()) + ", which "
                                        + (index.allocated(h.machine())
                                                ? "another pool holds"
                                                : "is not a machine of " + key));
                        uncounted.add(h.grantId());
                    } else {
                        index.hold(pool, spot(pool), h, 1);
                    }
                }));
        index.freeRange(1, machineCount + 1);
        for (int i = 1; i <= machineCount; i++) {
            if (!isFree(i)) {
                index.free(i, false);
            }
        }
    }

    ZoneTypeKey key() {
        return key;
    }

    LedgerIndex index() {
        return index;
    }

    /** The head record with the state's counters and {@code fleetChangesRecorded}. */
    LedgerHead head(long fleetChangesRecorded) {
        return new LedgerHead(
                key.zone(), key.instanceType(), sequence, lastGrantId, lastTicket, machineCount, fleetChangesRecorded);
    }

    long sequence() {
        return sequence;
    }

    long lastGrantId() {
        return lastGrantId;
    }

    long nextGrantId() {
        return ++lastGrantId;
    }

    long nextTicket() {
        return ++lastTicket;
    }

    void advanceSequence() {
        sequence++;
    }

    /** Sets the counters back to a head's (machines beyond its count are gone again). */
    void restoreCounters(LedgerHead head) {
        lastGrantId = head.lastGrantId();
        lastTicket = head.lastTicket();
        machineCount = head.machineCount();
    }

    SortedMap<String, PoolDemand> pools() {
        return Collections.unmodifiableSortedMap(pools);
    }

    PoolDemand pool(String pool) {
        return pools.get(pool);
    }

    /** Each pool holding machines, with what it holds by grant id. */
    Map<String, TreeMap<Long, Holding>> holders() {
        return Collections.unmodifiableMap(held);
    }

    int heldCount(String pool) {
        TreeMap<Long, Holding> grants = held.get(pool);
        return grants == null ? 0 : grants.size();
    }

    Collection<Holding> held(String pool) {
        TreeMap<Long, Holding> grants = held.get(pool);
        return grants == null ? List.of() : Collections.unmodifiableCollection(grants.values());
    }

    Holding holding(String pool, long grantId) {
        TreeMap<Long, Holding> grants = held.get(pool);
        return grants == null ? null : grants.get(grantId);
    }

    int machineCount() {
        return machineCount;
    }

    String machineName(int machine) {
        return Machine.nameOf(machinePrefix, machine);
    }

    String machinePrefix() {
        return machinePrefix;
    }

    Machine.Status status(int machine) {
        Machine.Status out = outOfService.get(machine);
        return out != null ? out : index.allocated(machine) ? Machine.Status.ALLOCATED : Machine.Status.FREE;
    }

    /** Why a machine is out of service, or null. */
    Machine.Status outOfService(int machine) {
        return outOfService.get(machine);
    }

    Collection<Map.Entry<Integer, Machine.Status>> outOfService() {
        return Collections.unmodifiableMap(outOfService).entrySet();
    }

    /** Why a pool read back is unsound, or null. */
    String unsound(String pool) {
        return unsound.get(pool);
    }

    /** The pool counts as sound from now on; returns why it was not (null: it was). */
    String forgetUnsound(String pool) {
        return unsound.remove(pool);
    }

    void restoreUnsound(Map<String, String> pools) {
        unsound.putAll(pools);
    }

    /** Sets a pool's demand (null: forgets it), keeping the queue and the spot counts current. */
    void replace(String pool, PoolDemand next) {
        PoolDemand previous = pools.get(pool);
        index.queue(pool, previous, -1);
        if (next == null) {
            pools.remove(pool);
        } else {
            pools.put(pool, next);
        }
        index.queue(pool, next, 1);
        boolean wasSpot = previous != null && previous.spot();
        boolean isSpot = next != null && next.spot();
        if (wasSpot != isSpot) {
            // What a pool holds counts as spot exactly while the pool is spot: a change of compute class, rare.
            for (Holding h : held(pool)) {
                if (!uncounted.contains(h.grantId())) {
                    index.hold(pool, wasSpot, h, -1);
                    index.hold(pool, isSpot, h, 1);
                }
            }
        }
    }

    /** Sets what a pool holds under a grant (null: ends it), keeping the indexes current. */
    void setGrant(String pool, long grantId, Holding next) {
        TreeMap<Long, Holding> grants = holdings(pool);
        Holding previous = next == null ? grants.remove(grantId) : grants.put(grantId, next);
        if (grants.isEmpty()) {
            held.remove(pool);
        }
        if (uncounted.contains(grantId)) {
            return;
        }
        if (previous != null) {
            index.hold(pool, spot(pool), previous, -1);
            index.free(previous.machine(), isFree(previous.machine()));
        }
        if (next != null) {
            index.hold(pool, spot(pool), next, 1);
            index.free(next.machine(), isFree(next.machine()));
        }
    }

    /** Takes a machine out of service (null: back into it), keeping the free machines current. */
    void setOutOfService(int machine, Machine.Status status) {
        if (status == null) {
            outOfService.remove(machine);
        } else {
            outOfService.put(machine, status);
        }
        index.free(machine, isFree(machine));
    }

    /** Adds {@code count} fresh machines after the last one and returns the index of the first. */
    int addMachines(int count) {
        int first = machineCount + 1;
        machineCount += count;
        index.freeRange(first, machineCount + 1);
        return first;
    }

    /** Brings the free machines index of one machine in line with the state. */
    void refreshFree(int machine) {
        index.free(machine, isFree(machine));
    }

    private TreeMap<Long, Holding> holdings(String pool) {
        return held.computeIfAbsent(pool, p -> new TreeMap<>());
    }

    private boolean spot(String pool) {
        PoolDemand demand = pools.get(pool);
        return demand != null && demand.spot();
    }

    private boolean isFree(int machine) {
        return machine >= 1
                && machine <= machineCount
                && !index.allocated(machine)
                && !outOfService.containsKey(machine);
    }
}
