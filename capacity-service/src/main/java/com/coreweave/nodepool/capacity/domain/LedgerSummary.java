package com.coreweave.nodepool.capacity.domain;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What operators see of one ledger: machine counts, who holds what, the queue in serving order, spot capacity and
 * what is being asked back from it. {@code machines} and {@code fleetChanges} are listed only for a single ledger.
 */
public record LedgerSummary(String zone, String instanceType, long total, long free, long allocated,
                            long maintenance, long retired, Map<String, Integer> allocatedByPool, List<Waiting> queue,
                            int reservedDemandWaiting, int spotDemandWaiting, long spotHeld, long reclaiming,
                            boolean reservedDemandWaitsOnSpot, List<Machine> machines,
                            List<FleetOutcome> fleetChanges) {

  /** A waiting pool: its place (1-based), class, how many nodes it waits for and since when. */
  public record Waiting(int position, String pool, String computeClass, int waitingNodes, Instant since) {
  }

  public static LedgerSummary of(LedgerState state, boolean detailed) {
    Holdings holdings = state.holdings();
    Map<String, Integer> byPool = new TreeMap<>();
    state.pools().forEach((key, pool) -> {
      int held = holdings.held(pool);
      if (held > 0) {
        byPool.put(key, held);
      }
    });
    List<PoolDemand> waiting = state.queue();
    List<Waiting> queue = new java.util.ArrayList<>();
    for (int i = 0; i < waiting.size(); i++) {
      PoolDemand pool = waiting.get(i);
      queue.add(new Waiting(i + 1, pool.ref().key().toString(), pool.spot() ? "spot" : "default",
          holdings.queued(pool), pool.waitingSince()));
    }
    return new LedgerSummary(state.zone(), state.instanceType(), state.total(), state.count(Machine.Status.FREE),
        state.count(Machine.Status.ALLOCATED), state.count(Machine.Status.MAINTENANCE),
        state.count(Machine.Status.RETIRED), byPool, queue, state.reservedDemandWaiting(),
        state.spotDemandWaiting(), state.spotHeld(),
        state.reclaiming(Machine.Reclaim.RESERVED_DEMAND) + state.reclaiming(Machine.Reclaim.OPERATOR),
        state.reservedDemandWaitsOnSpot(), detailed ? List.copyOf(state.machines().values()) : null,
        detailed ? state.fleetChanges() : null);
  }
}
