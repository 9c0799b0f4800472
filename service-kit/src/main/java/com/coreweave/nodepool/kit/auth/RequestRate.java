package com.coreweave.nodepool.kit.auth;

/**
 * A token bucket: {@code perSecond} requests a second on average, {@code burst} at once after a quiet spell. Plain and
 * clock-driven ({@code nanos}), so a test can step time.
 */
final class RequestRate {

    private final double perSecond;
    private final double burst;
    private double tokens;
    private long lastNanos;

    RequestRate(double perSecond, double burst, long nowNanos) {
        this.perSecond = perSecond;
        this.burst = burst;
        this.tokens = burst;
        this.lastNanos = nowNanos;
    }

    /** 0 when one more request may go now (and takes its token), else the whole seconds until one may. */
    synchronized int take(long nowNanos) {
        tokens = Math.min(burst, tokens + (nowNanos - lastNanos) / 1e9 * perSecond);
        lastNanos = nowNanos;
        if (tokens >= 1) {
            tokens -= 1;
            return 0;
        }
        return (int) Math.max(1, Math.ceil((1 - tokens) / perSecond));
    }
}
