package com.coreweave.nodepool.capacity.domain;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the input being applied has changed in a ledger: each pool and machine as it was before its first change,
 * the head's counters and the remembered fleet changes as they were at the start. From it the ledger writes only
 * what changed, or undoes all of it.
 */
final class LedgerChanges {

  /** Pools before their first change; null: the pool was not in the ledger. */
  final Map<String, PoolDemand> pools = new HashMap<>();
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

  void pool(String pool, PoolDemand before) {
    if (!pools.containsKey(pool)) {
      pools.put(pool, before);
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
    machines.clear();
    fleetChanges = null;
  }
}
