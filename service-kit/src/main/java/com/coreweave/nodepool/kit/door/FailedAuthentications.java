package com.coreweave.nodepool.kit.door;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Failed authentications per client address, each address a token bucket: {@code burst} failures at once, then
 * {@code perSecond}; past it the address is throttled (its failing requests get 429 with {@code Retry-After} instead of
 * 401). At most {@code maxAddresses} are tracked, the least recently failing forgotten first, so the map stays small
 * whatever the number of addresses. Plain and clock-driven ({@code nanos}), so a test can step time.
 */
public final class FailedAuthentications {

    private final double perSecond;
    private final double burst;
    private final Map<String, Bucket> buckets;

    /** Tokens left and when they were counted; a failure takes one. */
    private static final class Bucket {
        double tokens;
        long at;

        Bucket(double tokens, long at) {
            this.tokens = tokens;
            this.at = at;
        }
    }

    public FailedAuthentications(double perSecond, double burst, int maxAddresses) {
        if (perSecond <= 0 || burst < 1 || maxAddresses < 1) {
            throw new IllegalArgumentException("failed-authentication limits must be positive");
        }
        this.perSecond = perSecond;
        this.burst = burst;
        this.buckets = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
                return size() > maxAddresses;
            }
        };
    }

    /**
     * Counts a failed authentication from {@code address}: 0 while the address is within its budget, else the whole
     * seconds until it may fail again.
     */
    public synchronized int failed(String address, long nowNanos) {
        Bucket bucket = buckets.computeIfAbsent(address, a -> new Bucket(burst, nowNanos));
        bucket.tokens = Math.min(burst, bucket.tokens + (nowNanos - bucket.at) / 1e9 * perSecond);
        bucket.at = nowNanos;
        if (bucket.tokens >= 1) {
            bucket.tokens -= 1;
            return 0;
        }
        return (int) Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    }

    /** How many addresses are tracked now. */
    public synchronized int tracked() {
        return buckets.size();
    }
}
