package com.coreweave.nodepool.capacity.domain;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The indexes of one ledger in memory, kept current with every change of a pool or a machine, so no step of an input
 * scans all machines or all pools: free and allocated machines by index, the queue (waiting pools by ticket,
 * {@code default} before {@code spot}), spot machines not yet asked back by grant id, and counts.
 */
final class LedgerIndex {

    /** A spot machine nobody has asked back yet, and the pool holding it. */
    record Reclaimable(String pool, Holding holding) {}

    private final BitSet free = new BitSet();
    private final BitSet allocated = new BitSet();
    private final TreeMap<Long, String> reservedQueue = new TreeMap<>();
    private final TreeMap<Long, String> spotQueue = new TreeMap<>();
    private final TreeMap<Long, Reclaimable> reclaimable = new TreeMap<>();
    private final int[] reclaiming = new int[Machine.Reclaim.values().length];
    private int spotHeld;

    /** Adds a waiting pool to its queue ({@code sign} 1) or takes it out (-1). */
    void queue(String pool, PoolDemand demand, int sign) {
        if (demand == null || demand.ticket() == null) {
            return;
        }
        TreeMap<Long, String> queue = demand.spot() ? spotQueue : reservedQueue;
        if (sign > 0) {
            queue.put(demand.ticket(), pool);
        } else {
            queue.remove(demand.ticket());
        }
    }

    /** Adds what one machine a pool holds contributes ({@code sign} 1) or takes it away (-1). */
    void hold(String pool, boolean spot, Holding h, int sign) {
        allocated.set(h.machine(), sign > 0);
        if (h.reclaim() != null) {
            reclaiming[h.reclaim().ordinal()] += sign;
        }
        if (spot) {
            spotHeld += sign;
            if (h.reclaim() == null && sign > 0) {
                reclaimable.put(h.grantId(), new Reclaimable(pool, h));
            } else if (h.reclaim() == null) {
                reclaimable.remove(h.grantId());
            }
        }
    }

    void free(int machine, boolean isFree) {
        free.set(machine, isFree);
    }

    void freeRange(int from, int toExclusive) {
        free.set(from, toExclusive);
    }

    boolean free(int machine) {
        return free.get(machine);
    }

    boolean allocated(int machine) {
        return allocated.get(machine);
    }

    int nextFree(int from) {
        return free.nextSetBit(from);
    }

    int previousFree(int from) {
        return from < 1 ? -1 : free.previousSetBit(from);
    }

    long freeCount() {
        return free.cardinality();
    }

    long allocatedCount() {
        return allocated.cardinality();
    }

    /** The waiting pools in the order they are served. */
    List<String> queue() {
        List<String> queue = new ArrayList<>(reservedQueue.size() + spotQueue.size());
        queue.addAll(reservedQueue.values());
        queue.addAll(spotQueue.values());
        return queue;
    }

    /** Each waiting pool's place in the queue, 1-based. */
    Map<String, Integer> places() {
        Map<String, Integer> places = new HashMap<>();
        reservedQueue.values().forEach(pool -> places.put(pool, places.size() + 1));
        spotQueue.values().forEach(pool -> places.put(pool, places.size() + 1));
        return places;
    }

    Iterable<String> waiting(boolean spot) {
        return (spot ? spotQueue : reservedQueue).values();
    }

    long spotHeld() {
        return spotHeld;
    }

    long reclaiming(Machine.Reclaim why) {
        return reclaiming[why.ordinal()];
    }

    long reclaimable() {
        return reclaimable.size();
    }

    /** Up to {@code count} spot machines not yet asked back, the most recently granted first. */
    List<Reclaimable> newestReclaimable(int count) {
        return reclaimable.descendingMap().values().stream()
                .limit(Math.max(0, count))
                .toList();
    }
}
