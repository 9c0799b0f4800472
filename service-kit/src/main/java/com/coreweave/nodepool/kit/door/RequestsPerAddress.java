package com.coreweave.nodepool.kit.door;

import java.util.HashMap;
import java.util.Map;

/**
 * Requests in flight per client address, at most {@code max} each: one address cannot hold every worker and buffer of
 * an instance. An address with none in flight holds no entry, so the map is as large as the requests are many.
 */
public final class RequestsPerAddress {

    private final int max;
    private final Map<String, Integer> counts = new HashMap<>();

    public RequestsPerAddress(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("requests per address must be positive");
        }
        this.max = max;
    }

    /** Whether one more request of {@code address} may start; if so it counts until {@link #end}. */
    public synchronized boolean start(String address) {
        int now = counts.getOrDefault(address, 0);
        if (now >= max) {
            return false;
        }
        counts.put(address, now + 1);
        return true;
    }

    /** One request of {@code address} that {@link #start} let in is over. */
    public synchronized void end(String address) {
        int left = counts.getOrDefault(address, 0) - 1;
        if (left > 0) {
            counts.put(address, left);
        } else {
            counts.remove(address);
        }
    }

    /** The addresses with a request in flight now. */
    public synchronized int addresses() {
        return counts.size();
    }

    public int max() {
        return max;
    }
}
