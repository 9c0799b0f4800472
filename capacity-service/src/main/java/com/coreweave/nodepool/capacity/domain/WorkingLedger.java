package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A mutable copy of a {@link LedgerState} while one input is applied; {@link #state()} freezes it again. Only the
 * domain classes of this package use it, inside one call, so the ledger itself stays a value. Machines change only
 * through {@link #put}, which keeps the free list and the {@link Holdings} current, so no step of an input has to
 * scan all machines for one pool or for the next free one.
 */
final class WorkingLedger {

  final String zone;
  final String instanceType;
  final long sequence;
  private long lastGrantId;
  private long lastTicket;
  private final TreeMap<String, Machine> machines;
  final TreeMap<String, PoolDemand> pools;
  private final List<FleetOutcome> fleetChanges;
  /** Free machines by index: the first is granted next. */
  private final TreeMap<Integer, Machine> free = new TreeMap<>();
  private final Holdings holdings = new Holdings();

  WorkingLedger(LedgerState state) {
    this.zone = state.zone();
    this.instanceType = state.instanceType();
    this.sequence = state.sequence() + 1;
    this.lastGrantId = state.lastGrantId();
    this.lastTicket = state.lastTicket();
    this.machines = new TreeMap<>(state.machines());
    this.pools = new TreeMap<>(state.pools());
    this.fleetChanges = new ArrayList<>(state.fleetChanges());
    machines.values().forEach(this::index);
  }

  LedgerState state() {
    return new LedgerState(zone, instanceType, sequence, lastGrantId, lastTicket, new TreeMap<>(machines),
        new TreeMap<>(pools), List.copyOf(fleetChanges));
  }

  /** Whether applying the input changed anything but the sequence: if not, there is nothing to store. */
  boolean differsFrom(LedgerState before) {
    return lastGrantId != before.lastGrantId() || lastTicket != before.lastTicket()
        || !machines.equals(before.machines()) || !pools.equals(before.pools())
        || !fleetChanges.equals(before.fleetChanges());
  }

  /** Remembers an operator change's outcome, forgetting the oldest beyond {@code remembered}. */
  void remember(FleetOutcome outcome, int remembered) {
    fleetChanges.add(outcome);
    while (fleetChanges.size() > Math.max(1, remembered)) {
      fleetChanges.remove(0);
    }
  }

  Machine machine(String name) {
    return machines.get(name);
  }

  /** Every machine, retired ones included, by name; read-only (changes go through {@link #put}). */
  Collection<Machine> machines() {
    return Collections.unmodifiableCollection(machines.values());
  }

  List<Machine> withStatus(Machine.Status status) {
    return machines.values().stream().filter(m -> m.status() == status)
        .sorted(Comparator.comparingInt(Machine::index)).toList();
  }

  /**
   * The free machine granted next: the lowest index, so allocations are deterministic; {@code unless}, when another
   * machine is free, is passed over.
   */
  Optional<Machine> nextFree(String unless) {
    return free.values().stream().filter(m -> !m.name().equals(unless)).findFirst()
        .or(() -> free.isEmpty() ? Optional.empty() : Optional.of(free.firstEntry().getValue()));
  }

  int nextIndex() {
    return machines.values().stream().mapToInt(Machine::index).max().orElse(0) + 1;
  }

  void put(Machine machine) {
    Machine previous = machines.put(machine.name(), machine);
    if (previous != null) {
      free.remove(previous.index());
      holdings.remove(previous);
    }
    index(machine);
  }

  private void index(Machine machine) {
    if (machine.status() == Machine.Status.FREE) {
      free.put(machine.index(), machine);
    }
    holdings.add(machine);
  }

  Machine grant(Machine machine, PoolRef pool, Instant now) {
    Machine granted = machine.allocate(new Machine.Allocation(pool.key().toString(), pool.uid(), pool.spot(),
        ++lastGrantId, now, null));
    put(granted);
    return granted;
  }

  /**
   * Ends an allocation: a machine out of service, or one an operator asked back (the capacity is needed elsewhere),
   * goes to maintenance; every other one becomes free for the queue.
   */
  void release(Machine machine, boolean outOfService) {
    boolean forOperator = machine.allocation().reclaim() == Machine.Reclaim.OPERATOR;
    put(machine.withStatus(forOperator || outOfService ? Machine.Status.MAINTENANCE : Machine.Status.FREE));
  }

  /** Frees every machine of one pool incarnation. */
  void releaseAll(String pool, String poolUid) {
    held(pool, poolUid).forEach(m -> release(m, false));
  }

  /** A pool changed its compute class: what it holds now counts as spot (reclaimable) or reserved. */
  void reclass(String pool, String poolUid, boolean spot) {
    held(pool, poolUid).forEach(m -> put(m.allocate(m.allocation().asSpot(spot))));
  }

  /** The machines one pool incarnation holds, in the order they were granted. */
  List<Machine> held(String pool, String poolUid) {
    return holdings.of(pool, poolUid);
  }

  int queued(PoolDemand pool) {
    return holdings.queued(pool);
  }

  long nextTicket() {
    return ++lastTicket;
  }
}
