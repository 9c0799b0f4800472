package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The ledger of one zone × instance type, as stored (one Streams task owns the key, so one writer): its machines by
 * name, the demand of every pool of that zone and type by {@code <org>/<pool>}, and the outcomes of the latest
 * operator changes. {@code sequence} counts the inputs that changed the ledger (deterministic ids of its outputs come
 * from it; an input that changes nothing is not stored, so it does not count); grant ids and queue tickets only ever
 * grow.
 */
public record LedgerState(String zone, String instanceType, long sequence, long lastGrantId, long lastTicket,
                          SortedMap<String, Machine> machines, SortedMap<String, PoolDemand> pools,
                          List<FleetOutcome> fleetChanges) {

  public static LedgerState empty(ZoneTypeKey key) {
    return new LedgerState(key.zone(), key.instanceType(), 0, 0, 0, new TreeMap<>(), new TreeMap<>(), List.of());
  }

  /** Who holds which machine, indexed in one pass: each question below about all pools costs O(machines + pools). */
  Holdings holdings() {
    return Holdings.of(machines.values());
  }

  public long count(Machine.Status status) {
    return machines.values().stream().filter(m -> m.status() == status).count();
  }

  /** Machines that exist here: free, allocated or in maintenance (retired ones are gone). */
  public long total() {
    return machines.size() - count(Machine.Status.RETIRED);
  }

  /**
   * The waiting pools in the order they are served: {@code default} before {@code spot}, each in the order they
   * started waiting.
   */
  public List<PoolDemand> queue() {
    Holdings holdings = holdings();
    return pools.values().stream()
        .filter(p -> p.ticket() != null && holdings.queued(p) > 0)
        .sorted(Comparator.comparing(PoolDemand::spot).thenComparing(PoolDemand::ticket))
        .toList();
  }

  /** Nodes {@code default} pools wait for. */
  public int reservedDemandWaiting() {
    Holdings holdings = holdings();
    return pools.values().stream().filter(p -> !p.spot()).mapToInt(holdings::queued).sum();
  }

  /** Nodes {@code spot} pools wait for. */
  public int spotDemandWaiting() {
    Holdings holdings = holdings();
    return pools.values().stream().filter(PoolDemand::spot).mapToInt(holdings::queued).sum();
  }

  /** Machines spot pools hold. */
  public long spotHeld() {
    return machines.values().stream()
        .filter(m -> m.status() == Machine.Status.ALLOCATED && m.allocation().spot()).count();
  }

  /** Spot machines already asked back for {@code why}. */
  public long reclaiming(Machine.Reclaim why) {
    return machines.values().stream()
        .filter(m -> m.status() == Machine.Status.ALLOCATED && m.allocation().reclaim() == why).count();
  }

  /**
   * Whether reserved demand waits while spot nodes of this zone and type hold capacity that is not yet asked
   * back: the condition for a spot reclaim.
   */
  public boolean reservedDemandWaitsOnSpot() {
    return reservedDemandWaiting() > reclaiming(Machine.Reclaim.RESERVED_DEMAND)
        && machines.values().stream().anyMatch(SpotReclaimPolicy::reclaimable);
  }

  public Optional<FleetOutcome> fleetChange(String requestId) {
    return fleetChanges.stream().filter(o -> o.requestId().equals(requestId)).findFirst();
  }
}
