package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A mutable copy of a {@link LedgerState} while one input is applied; {@link #state()} freezes it again. Only the
 * domain classes of this package use it, inside one call, so the ledger itself stays a value.
 */
final class WorkingLedger {

  final String zone;
  final String instanceType;
  final long sequence;
  private long lastGrantId;
  private long lastTicket;
  final TreeMap<String, Machine> machines;
  final TreeMap<String, PoolDemand> pools;
  private final List<FleetOutcome> fleetChanges;

  WorkingLedger(LedgerState state) {
    this.zone = state.zone();
    this.instanceType = state.instanceType();
    this.sequence = state.sequence() + 1;
    this.lastGrantId = state.lastGrantId();
    this.lastTicket = state.lastTicket();
    this.machines = new TreeMap<>(state.machines());
    this.pools = new TreeMap<>(state.pools());
    this.fleetChanges = new ArrayList<>(state.fleetChanges());
  }

  LedgerState state() {
    return new LedgerState(zone, instanceType, sequence, lastGrantId, lastTicket, new TreeMap<>(machines),
        new TreeMap<>(pools), List.copyOf(fleetChanges));
  }

  /** Remembers an operator change's outcome, forgetting the oldest beyond {@code remembered}. */
  void remember(FleetOutcome outcome, int remembered) {
    fleetChanges.add(outcome);
    while (fleetChanges.size() > Math.max(1, remembered)) {
      fleetChanges.remove(0);
    }
  }

  List<Machine> withStatus(Machine.Status status) {
    return machines.values().stream().filter(m -> m.status() == status)
        .sorted(Comparator.comparingInt(Machine::index)).toList();
  }

  /** The free machine granted next: the lowest index, so allocations are deterministic. */
  Optional<Machine> nextFree() {
    return machines.values().stream().filter(m -> m.status() == Machine.Status.FREE)
        .min(Comparator.comparingInt(Machine::index));
  }

  int nextIndex() {
    return machines.values().stream().mapToInt(Machine::index).max().orElse(0) + 1;
  }

  void put(Machine machine) {
    machines.put(machine.name(), machine);
  }

  Machine grant(Machine machine, PoolRef pool, Instant now) {
    Machine granted = machine.allocate(new Machine.Allocation(pool.key().toString(), pool.uid(), pool.spot(),
        ++lastGrantId, now, null));
    put(granted);
    return granted;
  }

  /**
   * Ends an allocation: a machine an operator asked back goes to maintenance (the capacity is needed elsewhere),
   * every other one becomes free for the queue.
   */
  void release(Machine machine) {
    boolean forOperator = machine.allocation().reclaim() == Machine.Reclaim.OPERATOR;
    put(machine.withStatus(forOperator ? Machine.Status.MAINTENANCE : Machine.Status.FREE));
  }

  /** Frees every machine of one pool incarnation. */
  void releaseAll(String pool, String poolUid) {
    List<Machine> held = machines.values().stream().filter(m -> m.allocatedTo(pool, poolUid)).toList();
    held.forEach(this::release);
  }

  /** A pool changed its compute class: what it holds now counts as spot (reclaimable) or reserved. */
  void reclass(String pool, String poolUid, boolean spot) {
    machines.values().stream().filter(m -> m.allocatedTo(pool, poolUid)).toList()
        .forEach(m -> put(m.allocate(m.allocation().asSpot(spot))));
  }

  int held(String pool, String poolUid) {
    return (int) machines.values().stream().filter(m -> m.allocatedTo(pool, poolUid)).count();
  }

  int queued(PoolDemand pool) {
    return Math.max(0, pool.demand() - held(pool.ref().key().toString(), pool.ref().uid()));
  }

  long nextTicket() {
    return ++lastTicket;
  }
}
