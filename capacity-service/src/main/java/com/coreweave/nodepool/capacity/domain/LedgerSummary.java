package com.coreweave.nodepool.capacity.domain;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What operators see of one ledger: machine counts, who holds what, the queue in serving order, spot capacity and what
 * is being asked back from it. {@code machines} and {@code fleetChanges} are listed only for a single ledger.
 */
public record LedgerSummary(
        String zone,
        String instanceType,
        long total,
        long free,
        long allocated,
        long maintenance,
        long retired,
        Map<String, Integer> allocatedByPool,
        List<Waiting> queue,
        int reservedDemandWaiting,
        int spotDemandWaiting,
        long spotHeld,
        long reclaiming,
        boolean reservedDemandWaitsOnSpot,
        List<Machine> machines,
        List<FleetOutcome> fleetChanges) {

    /** A waiting pool: its place (1-based), class, how many nodes it waits for and since when. */
    public record Waiting(int position, String pool, String computeClass, int waitingNodes, Instant since) {}

    public static LedgerSummary of(Ledger ledger, boolean detailed) {
        Map<String, Integer> byPool = new TreeMap<>();
        ledger.pools().keySet().forEach(key -> {
            if (ledger.heldCount(key) > 0) {
                byPool.put(key, ledger.heldCount(key));
            }
        });
        List<Waiting> queue = new ArrayList<>();
        for (PoolDemand pool : ledger.queue()) {
            queue.add(new Waiting(
                    queue.size() + 1,
                    pool.ref().key().toString(),
                    pool.spot() ? "spot" : "default",
                    ledger.queued(pool.ref().key().toString()),
                    pool.waitingSince()));
        }
        return new LedgerSummary(
                ledger.zone(),
                ledger.instanceType(),
                ledger.total(),
                ledger.count(Machine.Status.FREE),
                ledger.count(Machine.Status.ALLOCATED),
                ledger.count(Machine.Status.MAINTENANCE),
                ledger.count(Machine.Status.RETIRED),
                byPool,
                queue,
                ledger.reservedDemandWaiting(),
                ledger.spotDemandWaiting(),
                ledger.spotHeld(),
                ledger.reclaiming(Machine.Reclaim.RESERVED_DEMAND) + ledger.reclaiming(Machine.Reclaim.OPERATOR),
                ledger.reservedDemandWaitsOnSpot(),
                detailed ? List.copyOf(ledger.machines().values()) : null,
                detailed ? ledger.fleetChanges() : null);
    }

    /** The remembered outcome of an operator change, if the ledger has applied it. */
    public Optional<FleetOutcome> fleetChange(String requestId) {
        return fleetChanges == null
                ? Optional.empty()
                : fleetChanges.stream()
                        .filter(o -> o.requestId().equals(requestId))
                        .findFirst();
    }
}
