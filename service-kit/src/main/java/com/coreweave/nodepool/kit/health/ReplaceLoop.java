package com.coreweave.nodepool.kit.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The replacements of a service's stream threads within a sliding window: more than {@code limit} of them is a replace
 * loop, a thread that fails the same way each time it starts again, while readiness would otherwise say UP. It ends
 * once the window holds no more than {@code limit}.
 */
public final class ReplaceLoop {

    private final int limit;
    private final Duration window;
    private final Deque<Instant> replacements = new ArrayDeque<>();

    public ReplaceLoop(int limit, Duration window) {
        this.limit = limit;
        this.window = window;
    }

    public synchronized void replaced(Instant at) {
        replacements.addLast(at);
        forget(at);
    }

    /** The replacements within the window before {@code now}. */
    public synchronized int recent(Instant now) {
        forget(now);
        return replacements.size();
    }

    public boolean looping(Instant now) {
        return recent(now) > limit;
    }

    public Duration window() {
        return window;
    }

    private void forget(Instant now) {
        Instant since = now.minus(window);
        while (!replacements.isEmpty() && !replacements.peekFirst().isAfter(since)) {
            replacements.removeFirst();
        }
    }
}
