package com.coreweave.nodepool.capacity.domain;

import java.util.Comparator;
import java.util.List;

/**
 * The Capacity Finder's answer for one zone: how many machines of the type are free now and whether {@code nodes} fit,
 * for a {@code default} pool (behind reserved demand already waiting) and for a {@code spot} pool (which gets only
 * capacity no waiting pool is owed). {@code spotReclaimable} is spot-held capacity reserved demand could take back
 * through preemption.
 */
public record Availability(
        String zone,
        long total,
        long free,
        int reservedDemandWaiting,
        int spotDemandWaiting,
        long spotHeld,
        long spotReclaimable,
        long availableForDefault,
        long availableForSpot,
        boolean spotOffered,
        boolean fitsDefault,
        boolean fitsSpot) {

    /** Best first: fits a default pool, then most available, then fits a spot pool, then zone name. */
    public static final Comparator<Availability> BEST_FIRST = Comparator.comparing(Availability::fitsDefault)
            .reversed()
            .thenComparing(
                    Comparator.comparingLong(Availability::availableForDefault).reversed())
            .thenComparing(Comparator.comparing(Availability::fitsSpot).reversed())
            .thenComparing(
                    Comparator.comparingLong(Availability::availableForSpot).reversed())
            .thenComparing(Availability::zone);

    /** The zone's availability from its ledger ({@code null}: no fleet there yet). */
    public static Availability of(String zone, Ledger ledger, int nodes, boolean spotOffered) {
        if (ledger == null) {
            return new Availability(zone, 0, 0, 0, 0, 0, 0, 0, 0, spotOffered, false, false);
        }
        long free = ledger.count(Machine.Status.FREE);
        int reserved = ledger.reservedDemandWaiting();
        int spot = ledger.spotDemandWaiting();
        long forDefault = Math.max(0, free - reserved);
        long forSpot = spotOffered ? Math.max(0, free - reserved - spot) : 0;
        long reclaimable = ledger.reclaimable();
        return new Availability(
                zone,
                ledger.total(),
                free,
                reserved,
                spot,
                ledger.spotHeld(),
                reclaimable,
                forDefault,
                forSpot,
                spotOffered,
                forDefault >= nodes,
                spotOffered && forSpot >= nodes);
    }

    public static List<Availability> ranked(List<Availability> zones) {
        return zones.stream().sorted(BEST_FIRST).toList();
    }
}
