package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.config.WatchSettings;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What watches may take from the instance: how many one credential and all callers together hold open (beyond that, 429
 * with {@code Retry-After}), the buffer of each, of each org's and of all of them ({@link WatchStream}), and how long
 * one lasts. A stopping instance ends them all. Made at start-up, so that its gauges say 0 before the first watch, not
 * nothing.
 */
@Startup
@ApplicationScoped
public class WatchLimits implements WatchStream.Budget {

    @Inject
    WatchSettings settings;

    @Inject
    CurrentCaller caller;

    private final Map<String, AtomicInteger> perCredential = new ConcurrentHashMap<>();
    /** Bytes each org's watches have waiting; an operator's watches of every org count as one org of their own. */
    private final Map<String, AtomicLong> perOrg = new ConcurrentHashMap<>();

    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong buffered = new AtomicLong();
    /** How to end each watch open now. */
    private final Set<Runnable> ends = ConcurrentHashMap.newKeySet();

    @Inject
    void metrics(MeterRegistry registry) {
        registry.gauge("nodepool.watches.open", open);
        registry.gauge("nodepool.watches.buffered.bytes", buffered);
    }

    /**
     * A new watch's stream for the current caller ({@link #admit}); {@code onEnd} runs when the watch ends, after its
     * place is given back.
     */
    WatchStream open(Runnable onEnd) {
        Runnable[] release = {() -> {}};
        WatchStream stream =
                new WatchStream(settings.watchBufferEvents(), settings.watchBufferBytes(), share(), OVERFLOWED, () -> {
                    release[0].run();
                    onEnd.run();
                });
        release[0] = admit(stream::complete);
        return stream;
    }

    /**
     * Counts one more watch of the current caller, or 429 when the caller or the instance holds as many as allowed; the
     * returned runnable gives the place back (once, however often it runs). {@code end} ends the watch, if the instance
     * stops first.
     */
    Runnable admit(Runnable end) {
        String credential = caller.credential();
        AtomicInteger mine = perCredential.computeIfAbsent(credential, c -> new AtomicInteger());
        if (mine.incrementAndGet() > settings.watchesPerCaller()) {
            release(credential, mine, false);
            throw tooMany("this token already holds " + settings.watchesPerCaller() + " watches");
        }
        if (open.incrementAndGet() > settings.watchesTotal()) {
            release(credential, mine, true);
            throw tooMany("the API serves " + settings.watchesTotal() + " watches at most");
        }
        AtomicBoolean released = new AtomicBoolean();
        ends.add(end);
        return () -> {
            if (released.compareAndSet(false, true)) {
                ends.remove(end);
                release(credential, mine, true);
            }
        };
    }

    /**
     * Ends every watch as the instance begins to stop, as the Kubernetes API server does: clients watch again from
     * their last resourceVersion, on another instance, and no open watch holds the graceful shutdown to its timeout.
     */
    void endAll(@Observes ShutdownDelayInitiatedEvent event) {
        List.copyOf(ends).forEach(Runnable::run);
    }

    /**
     * How long a watch lasts: what the client asked for, at most the server's maximum; without a wish, a time between
     * half the maximum and the maximum, so that watches opened together do not all end (and re-list) together.
     */
    Duration timeout(Long requestedSeconds) {
        Duration max = settings.watchMaxTimeout();
        if (requestedSeconds != null && requestedSeconds > 0) {
            return Duration.ofSeconds(Math.min(requestedSeconds, max.toSeconds()));
        }
        long half = max.toMillis() / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
    }

    /** Watches open on this instance now. */
    int open() {
        return open.get();
    }

    /**
     * The budget of the current caller's org: its share first, then the instance's, so one org's stalled watches use up
     * their share and end, while other orgs' watches still have theirs.
     */
    WatchStream.Budget share() {
        String org = caller.get().admin() ? "\u0000operators" : caller.org();
        AtomicLong mine = perOrg.computeIfAbsent(org, o -> new AtomicLong());
        long limit = settings.watchBuffersPerOrgBytes();
        return new WatchStream.Budget() {
            @Override
            public boolean reserve(long bytes) {
                if (mine.addAndGet(bytes) > limit) {
                    mine.addAndGet(-bytes);
                    return false;
                }
                if (!WatchLimits.this.reserve(bytes)) {
                    mine.addAndGet(-bytes);
                    return false;
                }
                return true;
            }

            @Override
            public void release(long bytes) {
                mine.addAndGet(-bytes);
                WatchLimits.this.release(bytes);
            }
        };
    }

    /** The instance's budget, every org's watches together. */
    @Override
    public boolean reserve(long bytes) {
        long total = buffered.addAndGet(bytes);
        if (total > settings.watchBuffersTotalBytes()) {
            buffered.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    @Override
    public void release(long bytes) {
        buffered.addAndGet(-bytes);
    }

    private void release(String credential, AtomicInteger mine, boolean counted) {
        if (counted) {
            open.decrementAndGet();
        }
        if (mine.decrementAndGet() <= 0) {
            perCredential.remove(credential, mine);
        }
    }

    private static ApiException tooMany(String why) {
        return ApiException.tooManyRequests(why + "; close one or retry later", 10);
    }

    /** What a watch that fell behind ends with: Kubernetes clients list again on 410. */
    static final byte[] OVERFLOWED = line(new WatchEvent(
            Statuses.failure(
                    410,
                    "Expired",
                    "the watch fell too far behind its changes (the client reads too slowly) and was closed; list again",
                    null),
            "ERROR"));

    /** One watch event as it goes on the wire: JSON, then a newline. */
    static byte[] line(WatchEvent event) {
        return (Json.string(event) + "\n").getBytes(StandardCharsets.UTF_8);
    }
}
