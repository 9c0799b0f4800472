package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The ledger of one zone × instance type in memory: machines {@code 1..machineCount} (free unless a pool holds them or
 * they are out of service), every pool's demand, the machines each pool holds, and the remembered fleet changes, with
 * indexes ({@link LedgerIndex}) that every change keeps current, so an input costs what it changes, not what the ledger
 * or a pool holds: a grant or a release is one map entry of its pool, whatever the pool's size. It caches the stored
 * records ({@link LedgerRecord}): loaded once, then each input is applied between {@link #begin} and {@link #commit},
 * which returns only the records it changed; a failed input is undone by {@link #rollback}.
 */
public final class Ledger {

    private final ZoneTypeKey key;
    private final String machinePrefix;
    private long sequence;
    private long lastGrantId;
    private long lastTicket;
    private int machineCount;
    private long fleetChangesRecorded;
    private final TreeMap<String, PoolDemand> pools = new TreeMap<>();
    /** The machines each pool holds, by grant id: in the order they were granted. */
    private final Map<String, TreeMap<Long, Holding>> held = new HashMap<>();

    private final Map<Integer, Machine.Status> outOfService = new HashMap<>();
    private ArrayDeque<FleetOutcome> fleetChanges = new ArrayDeque<>();
    private final LedgerIndex index = new LedgerIndex();
    private final LedgerChanges changes = new LedgerChanges();
    /**
     * Pools read back holding a machine they cannot hold (not one of the ledger's, or one another pool holds), and why:
     * such a grant is listed but not counted, and every change of the pool fails until the pool is forgotten.
     */
    private final Map<String, String> unsound = new HashMap<>();
    /** The grants of unsound pools that the indexes do not count. */
    private final Set<Long> uncounted = new HashSet<>();

    private Ledger(ZoneTypeKey key) {
        this.key = key;
        this.machinePrefix = Machine.prefix(key.zone(), key.instanceType());
    }

    public static Ledger empty(ZoneTypeKey key) {
        return new Ledger(key);
    }

    /** The ledger from its stored records: its head (null: nothing stored yet) and every other record. */
    public static Ledger load(ZoneTypeKey key, LedgerHead head, Iterable<? extends LedgerRecord> entries) {
        Ledger ledger = new Ledger(key);
        if (head != null) {
            ledger.sequence = head.sequence();
            ledger.lastGrantId = head.lastGrantId();
            ledger.lastTicket = head.lastTicket();
            ledger.machineCount = head.machineCount();
            ledger.fleetChangesRecorded = head.fleetChangesRecorded();
        }
        TreeMap<Long, FleetOutcome> remembered = new TreeMap<>();
        for (LedgerRecord record : entries) {
            switch (record) {
                case PoolDemand pool -> ledger.pools.put(pool.ref().key().toString(), pool);
                case HeldMachine machine -> ledger.holdings(machine.pool()).put(machine.grantId(), machine.holding());
                case OutOfService machine -> ledger.outOfService.put(machine.machine(), machine.status());
                case RememberedChange change -> remembered.put(change.number(), change.outcome());
                case LedgerHead ignored -> {}
            }
        }
        ledger.fleetChanges.addAll(remembered.values());
        ledger.buildIndex();
        return ledger;
    }

    /** The indexes of what was loaded. A grant that breaks the ledger's invariant makes its pool unsound. */
    private void buildIndex() {
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

    public ZoneTypeKey key() {
        return key;
    }

    public String zone() {
        return key.zone();
    }

    public String instanceType() {
        return key.instanceType();
    }

    public long sequence() {
        return sequence;
    }

    public long lastGrantId() {
        return lastGrantId;
    }

    public SortedMap<String, PoolDemand> pools() {
        return Collections.unmodifiableSortedMap(pools);
    }

    public PoolDemand pool(String pool) {
        return pools.get(pool);
    }

    /** How many machines a pool holds. */
    public int heldCount(String pool) {
        TreeMap<Long, Holding> grants = held.get(pool);
        return grants == null ? 0 : grants.size();
    }

    /** The machines a pool holds, in the order they were granted. */
    Collection<Holding> held(String pool) {
        TreeMap<Long, Holding> grants = held.get(pool);
        return grants == null ? List.of() : Collections.unmodifiableCollection(grants.values());
    }

    /** What a pool holds under a grant, or null. */
    Holding holding(String pool, long grantId) {
        TreeMap<Long, Holding> grants = held.get(pool);
        return grants == null ? null : grants.get(grantId);
    }

    /** Nodes a pool waits for: what it is admitted to hold beyond what it holds. */
    public int queued(String pool) {
        PoolDemand demand = pools.get(pool);
        return demand == null ? 0 : demand.queued(heldCount(pool));
    }

    public int machineCount() {
        return machineCount;
    }

    public String machineName(int machine) {
        return Machine.nameOf(machinePrefix, machine);
    }

    /** The index of one of this ledger's machines by its name, or 0 when it has no such machine. */
    public int indexOf(String name) {
        if (name == null || !name.startsWith(machinePrefix)) {
            return 0;
        }
        try {
            int machine = Integer.parseInt(name.substring(machinePrefix.length()));
            return machine >= 1
                            && machine <= machineCount
                            && machineName(machine).equals(name)
                    ? machine
                    : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    public Machine.Status status(int machine) {
        Machine.Status out = outOfService.get(machine);
        return out != null ? out : index.allocated(machine) ? Machine.Status.ALLOCATED : Machine.Status.FREE;
    }

    /** Every machine by name, in index order, with the allocation of those a pool holds. */
    public Map<String, Machine> machines() {
        Map<Integer, Machine.Allocation> allocations = new HashMap<>();
        held.forEach((pool, grants) -> {
            PoolDemand demand = pools.get(pool);
            grants.values()
                    .forEach(h -> allocations.put(
                            h.machine(),
                            new Machine.Allocation(
                                    pool, demand.ref().uid(), demand.spot(), h.grantId(), h.grantedAt(), h.reclaim())));
        });
        Map<String, Machine> machines = new LinkedHashMap<>();
        for (int i = 1; i <= machineCount; i++) {
            machines.put(machineName(i), new Machine(machineName(i), i, status(i), allocations.get(i)));
        }
        return machines;
    }

    /** The pool holding a machine, or null; a scan, for the rare message that names it. */
    public String holderOf(int machine) {
        return held.entrySet().stream()
                .filter(e -> e.getValue().values().stream().anyMatch(h -> h.machine() == machine))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
    }

    public long count(Machine.Status status) {
        return switch (status) {
            case FREE -> index.freeCount();
            case ALLOCATED -> index.allocatedCount();
            default -> outOfService.values().stream().filter(s -> s == status).count();
        };
    }

    /** Machines that exist here: free, allocated or in maintenance (retired ones are gone). */
    public long total() {
        return machineCount - count(Machine.Status.RETIRED);
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
        return outOfService.entrySet().stream()
                .filter(e -> e.getValue() == status)
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    /** The waiting pools in the order they are served: {@code default} before {@code spot}, each by ticket. */
    public List<PoolDemand> queue() {
        return index.queue().stream().map(pools::get).toList();
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
        return fleetChanges.stream()
                .filter(o -> o.requestId().equals(requestId))
                .findFirst();
    }

    /** The remembered fleet changes, oldest first. */
    public List<FleetOutcome> fleetChanges() {
        return List.copyOf(fleetChanges);
    }

    /**
     * {@code decided} listing what its pool holds now, as {@code capacity-checked} lists it: the machines by name, in
     * the order they were granted; none when the ledger holds no pool of that incarnation.
     */
    public CapacityChecked withGrants(CapacityChecked decided) {
        String pool = decided.pool().key().toString();
        PoolDemand demand = pools.get(pool);
        return decided.withGrants(
                demand == null || !demand.ref().uid().equals(decided.pool().uid())
                        ? List.of()
                        : held(pool).stream()
                                .map(h -> new Grant(machineName(h.machine()), h.grantId()))
                                .toList());
    }

    // ---- one input's changes: begin(), then changes, then commit() or rollback()

    void begin() {
        changes.begin(lastGrantId, lastTicket, machineCount, fleetChangesRecorded);
    }

    /** The sequence number of the input being applied, which names its outputs. */
    long nextSequence() {
        return sequence + 1;
    }

    long nextGrantId() {
        return ++lastGrantId;
    }

    long nextTicket() {
        return ++lastTicket;
    }

    /** The pools this input has changed so far: their demand, or what they hold. */
    Set<String> touched() {
        Set<String> touched = new HashSet<>(changes.pools.keySet());
        touched.addAll(changes.heldBefore.keySet());
        return touched;
    }

    /** A pool as it was before this input (null: it was not in the ledger). */
    PoolDemand before(String pool) {
        return changes.pools.containsKey(pool) ? changes.pools.get(pool) : pools.get(pool);
    }

    /** How many machines a pool held before this input. */
    int heldBefore(String pool) {
        return changes.heldBefore.getOrDefault(pool, heldCount(pool));
    }

    /** Whether this input granted the pool a machine or ended one of its grants. */
    boolean grantsChanged(String pool) {
        return changes.heldBefore.containsKey(pool);
    }

    /** Sets a pool's demand (null: forgets it, once it holds nothing). */
    void putPool(String pool, PoolDemand next) {
        if (next != null) {
            requireSound(pool);
        }
        changes.pool(pool, pools.get(pool));
        replace(pool, next);
    }

    /** Grants a pool a machine, which must be a free one of the ledger: no machine is ever held twice. */
    void grant(String pool, Holding holding) {
        requireSound(pool);
        if (!index.free(holding.machine())) {
            throw new IllegalStateException("machine " + machineName(holding.machine()) + " cannot be granted to "
                    + pool + ": it is " + status(holding.machine()));
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
        changeGrant(pool, grantId, holding(pool, grantId).reclaimed(why));
    }

    /** Ends every grant of a pool, sound or not (it is forgotten, or another incarnation takes its place). */
    List<Holding> endAll(String pool) {
        List<Holding> ended = List.copyOf(held(pool));
        if (unsound.containsKey(pool)) {
            changes.unsound(pool, unsound.remove(pool));
        }
        ended.forEach(h -> changeGrant(pool, h.grantId(), null));
        return ended;
    }

    void setOutOfService(int machine, Machine.Status status) {
        changes.machine(machine, outOfService.get(machine));
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

    /** Remembers an operator change's outcome, forgetting the oldest beyond {@code remembered}. */
    void remember(FleetOutcome outcome, int remembered) {
        changes.fleetChanges(fleetChanges);
        fleetChanges.addLast(outcome);
        fleetChangesRecorded++;
        while (fleetChanges.size() > Math.max(1, remembered)) {
            fleetChanges.removeFirst();
        }
    }

    /** Ends the input: the records it changed (a null value deletes), with the head if anything changed at all. */
    LedgerWrites commit() {
        TreeMap<String, LedgerRecord> writes = new TreeMap<>();
        changes.pools.forEach((pool, was) -> {
            PoolDemand now = pools.get(pool);
            if (!Objects.equals(was, now)) {
                writes.put(LedgerKeys.pool(key, pool), now);
            }
        });
        changes.grants.forEach((grantId, before) -> {
            Holding now = holding(before.pool(), grantId);
            if (!Objects.equals(before.holding(), now)) {
                writes.put(
                        LedgerKeys.held(key, before.pool(), grantId),
                        now == null ? null : HeldMachine.of(before.pool(), now));
            }
        });
        changes.machines.forEach((machine, was) -> {
            Machine.Status now = outOfService.get(machine);
            if (was != now) {
                writes.put(LedgerKeys.machine(key, machine), now == null ? null : new OutOfService(machine, now));
            }
        });
        if (changes.fleetChanges != null) {
            long firstKept = fleetChangesRecorded - fleetChanges.size() + 1;
            for (long n = changes.fleetChangesRecorded - changes.fleetChanges.size() + 1; n < firstKept; n++) {
                writes.put(LedgerKeys.change(key, n), null);
            }
            rememberedFrom(changes.fleetChangesRecorded + 1, writes);
        }
        boolean headChanged = lastGrantId != changes.lastGrantId
                || lastTicket != changes.lastTicket
                || machineCount != changes.machineCount
                || fleetChangesRecorded != changes.fleetChangesRecorded;
        if (!writes.isEmpty() || headChanged) {
            sequence++;
            writes.put(
                    LedgerKeys.head(key),
                    new LedgerHead(
                            zone(),
                            instanceType(),
                            sequence,
                            lastGrantId,
                            lastTicket,
                            machineCount,
                            fleetChangesRecorded));
        }
        changes.clear();
        return new LedgerWrites(writes);
    }

    /** Undoes everything since {@link #begin}. */
    void rollback() {
        Set<Integer> machines = new HashSet<>(changes.machines.keySet());
        changes.grants.forEach((grantId, before) -> {
            Holding now = holding(before.pool(), grantId);
            machines.add((now != null ? now : before.holding()).machine());
            setGrant(before.pool(), grantId, before.holding());
        });
        changes.pools.forEach(this::replace);
        unsound.putAll(changes.unsound);
        changes.machines.forEach((machine, was) -> {
            if (was == null) {
                outOfService.remove(machine);
            } else {
                outOfService.put(machine, was);
            }
        });
        for (int i = changes.machineCount + 1; i <= machineCount; i++) {
            machines.add(i);
        }
        lastGrantId = changes.lastGrantId;
        lastTicket = changes.lastTicket;
        machineCount = changes.machineCount;
        if (changes.fleetChanges != null) {
            fleetChanges = new ArrayDeque<>(changes.fleetChanges);
            fleetChangesRecorded = changes.fleetChangesRecorded;
        }
        machines.forEach(i -> index.free(i, isFree(i)));
        changes.clear();
    }

    /** Writes the remembered fleet changes numbered {@code from} on. */
    private void rememberedFrom(long from, Map<String, LedgerRecord> writes) {
        long n = fleetChangesRecorded - fleetChanges.size() + 1;
        for (FleetOutcome outcome : fleetChanges) {
            if (n >= from) {
                writes.put(LedgerKeys.change(key, n), new RememberedChange(n, outcome));
            }
            n++;
        }
    }

    private void replace(String pool, PoolDemand next) {
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

    /** Sets what a pool holds under a grant (null: ends it) as a change of this input. */
    private void changeGrant(String pool, long grantId, Holding next) {
        Holding previous = holding(pool, grantId);
        changes.grant(pool, grantId, previous);
        if ((previous == null) != (next == null)) {
            changes.held(pool, heldCount(pool));
        }
        setGrant(pool, grantId, next);
    }

    /** Sets what a pool holds under a grant (null: ends it), keeping the indexes current. */
    private void setGrant(String pool, long grantId, Holding next) {
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

    private TreeMap<Long, Holding> holdings(String pool) {
        return held.computeIfAbsent(pool, p -> new TreeMap<>());
    }

    private boolean spot(String pool) {
        PoolDemand demand = pools.get(pool);
        return demand != null && demand.spot();
    }

    private void requireSound(String pool) {
        String why = unsound.get(pool);
        if (why != null) {
            throw new IllegalStateException(why);
        }
    }

    private boolean isFree(int machine) {
        return machine >= 1
                && machine <= machineCount
                && !index.allocated(machine)
                && !outOfService.containsKey(machine);
    }
}
