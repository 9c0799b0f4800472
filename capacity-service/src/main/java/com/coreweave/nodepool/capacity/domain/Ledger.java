package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The ledger of one zone × instance type in memory, as readers and decisions see it: machines {@code 1..machineCount}
 * (free unless a pool holds them or they are out of service), every pool's demand, the machines each pool holds, and
 * the remembered fleet changes.
 *
 * <ul>
 *   <li>The stored state and its indexes are {@link LedgerState}'s, so an input costs what it changes, not what the
 *       ledger or a pool holds: a grant or a release is one map entry of its pool, whatever the pool's size.
 *   <li>It caches the stored records ({@link LedgerRecord}): loaded once, then each input changes it only through the
 *       {@link LedgerChanges} that {@link #begin} returns, whose commit returns only the records it changed and whose
 *       rollback undoes a failed input.
 *   <li>The outcomes of operator changes are remembered by {@link RememberedFleetChanges}.
 * </ul>
 */
public final class Ledger {

    private final LedgerState state;
    private final LedgerIndex index;
    private final RememberedFleetChanges fleetChanges;
    private final LedgerChanges changes;

    private Ledger(LedgerState state, RememberedFleetChanges fleetChanges) {
        this.state = state;
        this.index = state.index();
        this.fleetChanges = fleetChanges;
        this.changes = new LedgerChanges(state, fleetChanges);
    }

    public static Ledger empty(ZoneTypeKey key) {
        return new Ledger(new LedgerState(key, null), new RememberedFleetChanges(0, List.of()));
    }

    /** The ledger from its stored records: its head (null: nothing stored yet) and every other record. */
    public static Ledger load(ZoneTypeKey key, LedgerHead head, Iterable<? extends LedgerRecord> entries) {
        LedgerState state = new LedgerState(key, head);
        TreeMap<Long, FleetOutcome> remembered = new TreeMap<>();
        for (LedgerRecord record : entries) {
            if (record instanceof RememberedChange change) {
                remembered.put(change.number(), change.outcome());
            } else {
                state.load(record);
            }
        }
        state.buildIndex();
        return new Ledger(
                state, new RememberedFleetChanges(head == null ? 0 : head.fleetChangesRecorded(), remembered.values()));
    }

    public ZoneTypeKey key() {
        return state.key();
    }

    public String zone() {
        return key().zone();
    }

    public String instanceType() {
        return key().instanceType();
    }

    public long sequence() {
        return state.sequence();
    }

    public long lastGrantId() {
        return state.lastGrantId();
    }

    public SortedMap<String, PoolDemand> pools() {
        return state.pools();
    }

    public PoolDemand pool(String pool) {
        return state.pool(pool);
    }

    /** How many machines a pool holds. */
    public int heldCount(String pool) {
        return state.heldCount(pool);
    }

    /** The machines a pool holds, in the order they were granted. */
    Collection<Holding> held(String pool) {
        return state.held(pool);
    }

    /** What a pool holds under a grant, or null. */
    Holding holding(String pool, long grantId) {
        return state.holding(pool, grantId);
    }

    /** Nodes a pool waits for: what it is admitted to hold beyond what it holds. */
    public int queued(String pool) {
        PoolDemand demand = state.pool(pool);
        return demand == null ? 0 : demand.queued(heldCount(pool));
    }

    public int machineCount() {
        return state.machineCount();
    }

    public String machineName(int machine) {
        return state.machineName(machine);
    }

    /** The index of one of this ledger's machines by its name, or 0 when it has no such machine. */
    public int indexOf(String name) {
        return Machine.indexOf(state.machinePrefix(), name, machineCount());
    }

    public Machine.Status status(int machine) {
        return state.status(machine);
    }

    /** Every machine by name, in index order, with the allocation of those a pool holds. */
    public Map<String, Machine> machines() {
        Map<Integer, Machine.Allocation> allocations = new HashMap<>();
        state.holders().forEach((pool, grants) -> {
            PoolDemand demand = state.pool(pool);
            grants.values()
                    .forEach(h -> allocations.put(
                            h.machine(),
                            new Machine.Allocation(
                                    pool, demand.ref().uid(), demand.spot(), h.grantId(), h.grantedAt(), h.reclaim())));
        });
        Map<String, Machine> machines = new LinkedHashMap<>();
        for (int i = 1; i <= machineCount(); i++) {
            machines.put(machineName(i), new Machine(machineName(i), i, status(i), allocations.get(i)));
        }
        return machines;
    }

    /** The pool holding a machine, or null; a scan, for the rare message that names it. */
    public String holderOf(int machine) {
        return state.holders().entrySet().stream()
                .filter(e -> e.getValue().values().stream().anyMatch(h -> h.machine() == machine))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
    }

    public long count(Machine.Status status) {
        return switch (status) {
            case FREE -> index.freeCount();
            case ALLOCATED -> index.allocatedCount();
            default ->
                state.outOfService().stream()
                        .filter(e -> e.getValue() == status)
                        .count();
        };
    }

    /** Machines that exist here: free, allocated or in maintenance (retired ones are gone). */
    public long total() {
        return machineCount() - count(Machine.Status.RETIRED);
    }

    /** Free machines from {@code from} up, and down ({@code -1}: none). */
    int nextFree(int from) {
        return index.nextFree(from);
    }

    int previousFree(int from) {
        return index.previousFree(from);
    }

    /** The machines of one status out of service, lowest index first. */
    List<Integer> outOfService(Machine.Status status) {
        return state.outOfService().stream()
                .filter(e -> e.getValue() == status)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    /** The waiting pools in the order they are served: {@code default} before {@code spot}, each by ticket. */
    public List<PoolDemand> queue() {
        return index.queue().stream().map(state::pool).toList();
    }

    /** Each waiting pool's place in the queue, 1-based. */
    Map<String, Integer> places() {
        return index.places();
    }

    /** Nodes {@code default} pools wait for. */
    public int reservedDemandWaiting() {
        return waiting(false);
    }

    /** Nodes {@code spot} pools wait for. */
    public int spotDemandWaiting() {
        return waiting(true);
    }

    private int waiting(boolean spot) {
        int nodes = 0;
        for (String pool : index.waiting(spot)) {
            nodes += queued(pool);
        }
        return nodes;
    }

    /** Machines spot pools hold. */
    public long spotHeld() {
        return index.spotHeld();
    }

    /** Spot machines already asked back for {@code why}. */
    public long reclaiming(Machine.Reclaim why) {
        return index.reclaiming(why);
    }

    /** Spot machines nobody has asked back yet. */
    public long reclaimable() {
        return index.reclaimable();
    }

    /** Up to {@code count} spot machines not yet asked back, the most recently granted first. */
    List<LedgerIndex.Reclaimable> newestReclaimable(int count) {
        return index.newestReclaimable(count);
    }

    /**
     * Whether reserved demand waits while spot nodes of this zone and type hold capacity that is not yet asked back:
     * the condition for a spot reclaim.
     */
    public boolean reservedDemandWaitsOnSpot() {
        return reservedDemandWaiting() > reclaiming(Machine.Reclaim.RESERVED_DEMAND) && reclaimable() > 0;
    }

    public Optional<FleetOutcome> fleetChange(String requestId) {
        return fleetChanges.find(requestId);
    }

    /** The remembered fleet changes, oldest first. */
    public List<FleetOutcome> fleetChanges() {
        return fleetChanges.list();
    }

    /**
     * {@code decided} listing what its pool holds now, as {@code capacity-checked} lists it: the machines by name, in
     * the order they were granted; none when the ledger holds no pool of that incarnation.
     */
    public CapacityChecked withGrants(CapacityChecked decided) {
        String pool = decided.pool().key().toString();
        PoolDemand demand = state.pool(pool);
        return decided.withGrants(
                demand == null || !demand.ref().uid().equals(decided.pool().uid())
                        ? List.of()
                        : held(pool).stream()
                                .map(h -> new Grant(machineName(h.machine()), h.grantId()))
                                .toList());
    }

    /** The sequence number of the input being applied, which names its outputs. */
    long nextSequence() {
        return sequence() + 1;
    }

    /** Starts applying an input: every change of it goes through the changes returned, until commit or rollback. */
    LedgerChanges begin() {
        changes.begin();
        return changes;
    }
}
