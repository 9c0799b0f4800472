package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.ArrayDeque;
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
 * The ledger of one zone × instance type in memory: machines {@code 1..machineCount} (free unless a pool holds them
 * or they are out of service), every pool's demand and holdings, and the remembered fleet changes, with indexes
 * ({@link LedgerIndex}) that every change keeps current, so an input costs what it changes, not what the ledger
 * holds. It caches the stored records ({@link LedgerRecord}): loaded once, then each input is applied between
 * {@link #begin} and {@link #commit}, which returns only the records it changed; a failed input is undone by
 * {@link #rollback}.
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
  private final Map<Integer, Machine.Status> outOfService = new HashMap<>();
  private ArrayDeque<FleetOutcome> fleetChanges = new ArrayDeque<>();
  private final LedgerIndex index = new LedgerIndex();
  private final LedgerChanges changes = new LedgerChanges();
  /** Loaded from a ledger stored whole: its first change writes every record. */
  private boolean rewriteAll;

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
      if (head.legacy() != null) {
        LegacyLedgers.load(ledger, head.legacy());
      }
    }
    TreeMap<Long, FleetOutcome> remembered = new TreeMap<>();
    for (LedgerRecord record : entries) {
      switch (record) {
        case PoolDemand pool -> ledger.pools.put(pool.ref().key().toString(), pool);
        case OutOfService machine -> ledger.outOfService.put(machine.machine(), machine.status());
        case RememberedChange change -> remembered.put(change.number(), change.outcome());
        case LedgerHead ignored -> { }
      }
    }
    ledger.fleetChanges.addAll(remembered.values());
    ledger.pools.forEach((pool, demand) -> ledger.index.index(pool, demand, 1));
    ledger.index.freeRange(1, ledger.machineCount + 1);
    for (int i = 1; i <= ledger.machineCount; i++) {
      if (!ledger.isFree(i)) {
        ledger.index.free(i, false);
      }
    }
    return ledger;
  }

  /** Fills an empty ledger from one stored whole by an earlier version. */
  void loadLegacy(int machines, Map<String, PoolDemand> legacyPools, Map<Integer, Machine.Status> legacyOutOfService,
                  List<FleetOutcome> remembered) {
    machineCount = machines;
    pools.putAll(legacyPools);
    outOfService.putAll(legacyOutOfService);
    fleetChanges.addAll(remembered);
    fleetChangesRecorded = remembered.size();
    rewriteAll = true;
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
      return machine >= 1 && machine <= machineCount && machineName(machine).equals(name) ? machine : 0;
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
    pools.forEach((pool, demand) -> demand.held().forEach(h -> allocations.put(h.machine(),
        new Machine.Allocation(pool, demand.ref().uid(), demand.spot(), h.grantId(), h.grantedAt(), h.reclaim()))));
    Map<String, Machine> machines = new LinkedHashMap<>();
    for (int i = 1; i <= machineCount; i++) {
      machines.put(machineName(i), new Machine(machineName(i), i, status(i), allocations.get(i)));
    }
    return machines;
  }

  /** The pool holding a machine, or null; a scan, for the rare message that names it. */
  public String holderOf(int machine) {
    return pools.entrySet().stream()
        .filter(e -> e.getValue().held().stream().anyMatch(h -> h.machine() == machine))
        .map(Map.Entry::getKey).findFirst().orElse(null);
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
    return outOfService.entrySet().stream().filter(e -> e.getValue() == status).map(Map.Entry::getKey).sorted()
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
      nodes += pools.get(pool).queued();
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
   * Whether reserved demand waits while spot nodes of this zone and type hold capacity that is not yet asked
   * back: the condition for a spot reclaim.
   */
  public boolean reservedDemandWaitsOnSpot() {
    return reservedDemandWaiting() > reclaiming(Machine.Reclaim.RESERVED_DEMAND) && reclaimable() > 0;
  }

  public Optional<FleetOutcome> fleetChange(String requestId) {
    return fleetChanges.stream().filter(o -> o.requestId().equals(requestId)).findFirst();
  }

  /** The remembered fleet changes, oldest first. */
  public List<FleetOutcome> fleetChanges() {
    return List.copyOf(fleetChanges);
  }

  /** What {@code capacity-checked} lists for a pool: its machines by name, in the order they were granted. */
  List<Grant> grants(PoolDemand pool) {
    return pool == null ? List.of()
        : pool.held().stream().map(h -> new Grant(machineName(h.machine()), h.grantId())).toList();
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

  /** The pools this input has changed so far. */
  Set<String> touched() {
    return new HashSet<>(changes.pools.keySet());
  }

  /** A pool as it was before this input (null: it was not in the ledger). */
  PoolDemand before(String pool) {
    return changes.pools.containsKey(pool) ? changes.pools.get(pool) : pools.get(pool);
  }

  /**
   * Sets a pool (null: forgets it). What it holds must be machines of the ledger, and what it newly holds must be
   * free, so no machine is ever held twice; otherwise the input fails (and is undone).
   */
  void putPool(String pool, PoolDemand next) {
    PoolDemand previous = pools.get(pool);
    if (next != null) {
      Set<Integer> had = new HashSet<>();
      if (previous != null) {
        previous.held().forEach(h -> had.add(h.machine()));
      }
      for (Holding h : next.held()) {
        if (h.machine() < 1 || h.machine() > machineCount) {
          throw new IllegalStateException(pool + " holds " + machineName(h.machine()) + ", which is not a machine of "
              + key);
        }
        if (!had.contains(h.machine()) && !index.free(h.machine())) {
          throw new IllegalStateException("machine " + machineName(h.machine()) + " cannot be granted to " + pool
              + ": it is " + status(h.machine()));
        }
      }
    }
    changes.pool(pool, previous);
    replace(pool, next);
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
    boolean headChanged = lastGrantId != changes.lastGrantId || lastTicket != changes.lastTicket
        || machineCount != changes.machineCount || fleetChangesRecorded != changes.fleetChangesRecorded;
    if (!writes.isEmpty() || headChanged) {
      if (rewriteAll) {
        pools.forEach((pool, demand) -> writes.put(LedgerKeys.pool(key, pool), demand));
        outOfService.forEach((machine, status) -> writes.put(LedgerKeys.machine(key, machine),
            new OutOfService(machine, status)));
        rememberedFrom(0, writes);
        rewriteAll = false;
      }
      sequence++;
      writes.put(LedgerKeys.head(key), new LedgerHead(zone(), instanceType(), sequence, lastGrantId, lastTicket,
          machineCount, fleetChangesRecorded, null));
    }
    changes.clear();
    return new LedgerWrites(writes);
  }

  /** Undoes everything since {@link #begin}. */
  void rollback() {
    Set<Integer> machines = new HashSet<>(changes.machines.keySet());
    changes.pools.forEach((pool, was) -> {
      PoolDemand now = pools.get(pool);
      if (now != null) {
        now.held().forEach(h -> machines.add(h.machine()));
      }
      replace(pool, was);
    });
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
    index.index(pool, previous, -1);
    if (next == null) {
      pools.remove(pool);
    } else {
      pools.put(pool, next);
    }
    index.index(pool, next, 1);
    for (PoolDemand demand : new PoolDemand[] {previous, next}) {
      if (demand != null) {
        demand.held().forEach(h -> index.free(h.machine(), isFree(h.machine())));
      }
    }
  }

  private boolean isFree(int machine) {
    return machine >= 1 && machine <= machineCount && !index.allocated(machine)
        && !outOfService.containsKey(machine);
  }
}
