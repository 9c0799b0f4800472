package com.coreweave.nodepool.capacity.domain;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a ledger stored whole by an earlier version (one {@code LedgerState} value per ledger key: every machine
 * with its allocation, every pool) into the record-per-key model, so a service upgraded on an existing changelog
 * keeps every grant, queue place and remembered fleet change.
 */
final class LegacyLedgers {

  private LegacyLedgers() {
  }

  static void load(Ledger ledger, LedgerHead.Legacy legacy) {
    Map<String, List<Holding>> held = new HashMap<>();
    Map<Integer, Machine.Status> outOfService = new HashMap<>();
    int count = 0;
    for (Machine machine : legacy.machines().values()) {
      count = Math.max(count, machine.index());
      switch (machine.status()) {
        case ALLOCATED -> {
          Machine.Allocation allocation = machine.allocation();
          LedgerHead.LegacyPool pool = allocation == null ? null : legacy.pools().get(allocation.pool());
          if (pool != null && pool.ref().uid().equals(allocation.poolUid())) {
            held.computeIfAbsent(allocation.pool(), p -> new ArrayList<>()).add(new Holding(machine.index(),
                allocation.grantId(), allocation.grantedAt(), allocation.reclaim()));
          } else {
            // Held by a pool the ledger does not know: never hand it out again until an operator returns it.
            outOfService.put(machine.index(), Machine.Status.MAINTENANCE);
          }
        }
        case MAINTENANCE, RETIRED -> outOfService.put(machine.index(), machine.status());
        case FREE -> { }
      }
    }
    Map<String, PoolDemand> pools = new HashMap<>();
    legacy.pools().forEach((key, pool) -> pools.put(key, new PoolDemand(pool.ref(), pool.demand(), pool.ticket(),
        pool.waitingSince(), pool.insufficientReported(), pool.reason(), null, null, null)));
    ledger.loadLegacy(count, pools, held, outOfService, legacy.changes());
  }
}
