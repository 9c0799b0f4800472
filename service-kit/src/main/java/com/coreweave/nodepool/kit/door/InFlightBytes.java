package com.coreweave.nodepool.kit.door;

import java.util.HashMap;
import java.util.Map;

/**
 * The request bodies an instance has admitted and not yet answered, in bytes: at most {@code perOrg} for one org and
 * {@code total} for all, so one org's uploads cannot fill the heap that every org's requests share. A body is counted
 * at the length it declares, or at the largest allowed when it declares none (chunked), from the moment its headers are
 * admitted until its answer is sent. An org with nothing in flight holds no entry.
 */
public final class InFlightBytes {

    private final long perOrg;
    private final long total;
    private final Map<String, Long> byOrg = new HashMap<>();
    private long held;

    public InFlightBytes(long perOrg, long total) {
        if (perOrg <= 0 || total < perOrg) {
            throw new IllegalArgumentException("in-flight budgets must be positive, the total at least one org's");
        }
        this.perOrg = perOrg;
        this.total = total;
    }

    /** Whether {@code bytes} more of {@code org} fit; if so they are held until {@link #release}d. */
    public synchronized boolean reserve(String org, long bytes) {
        long mine = byOrg.getOrDefault(org, 0L);
        if (mine + bytes > perOrg || held + bytes > total) {
            return false;
        }
        byOrg.put(org, mine + bytes);
        held += bytes;
        return true;
    }

    /** Gives back what {@link #reserve} took. */
    public synchronized void release(String org, long bytes) {
        long left = byOrg.getOrDefault(org, 0L) - bytes;
        if (left > 0) {
            byOrg.put(org, left);
        } else {
            byOrg.remove(org);
        }
        held = Math.max(0, held - bytes);
    }

    /** What {@code org} holds now. */
    public synchronized long heldBy(String org) {
        return byOrg.getOrDefault(org, 0L);
    }

    /** What every org holds together now. */
    public synchronized long held() {
        return held;
    }

    public long perOrg() {
        return perOrg;
    }
}
