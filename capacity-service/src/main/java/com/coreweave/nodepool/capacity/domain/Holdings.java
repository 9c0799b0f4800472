package com.coreweave.nodepool.capacity.domain;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The allocated machines of one ledger by the pool that holds them, indexed in one pass. What a pool holds is looked
 * up here instead of found by scanning every machine, which, done for every pool, cost O(pools × machines) per
 * input. Keyed by the pool; the incarnation (uid) is matched on lookup, like {@link Machine#allocatedTo}.
 */
final class Holdings {

  private static final Comparator<Machine> BY_GRANT = Comparator.comparingLong(m -> m.allocation().grantId());

  private final Map<String, Map<String, Machine>> byPool = new HashMap<>();

  static Holdings of(Collection<Machine> machines) {
    Holdings holdings = new Holdings();
    machines.forEach(holdings::add);
    return holdings;
  }

  void add(Machine machine) {
    if (machine.status() == Machine.Status.ALLOCATED) {
      byPool.computeIfAbsent(machine.allocation().pool(), p -> new HashMap<>()).put(machine.name(), machine);
    }
  }

  void remove(Machine machine) {
    if (machine.status() == Machine.Status.ALLOCATED) {
      Map<String, Machine> held = byPool.get(machine.allocation().pool());
      held.remove(machine.name());
      if (held.isEmpty()) {
        byPool.remove(machine.allocation().pool());
      }
    }
  }

  /** The machines one pool incarnation holds, in the order they were granted. */
  List<Machine> of(String pool, String poolUid) {
    return byPool.getOrDefault(pool, Map.of()).values().stream()
        .filter(m -> m.allocatedTo(pool, poolUid))
        .sorted(BY_GRANT)
        .toList();
  }

  int count(String pool, String poolUid) {
    return (int) byPool.getOrDefault(pool, Map.of()).values().stream().filter(m -> m.allocatedTo(pool, poolUid))
        .count();
  }

  int held(PoolDemand pool) {
    return count(pool.ref().key().toString(), pool.ref().uid());
  }

  /** Nodes {@code pool} still waits for: what it is admitted to hold beyond what it holds. */
  int queued(PoolDemand pool) {
    return Math.max(0, pool.demand() - held(pool));
  }
}
