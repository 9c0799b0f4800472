package com.coreweave.nodepool.api.messaging;

import com.coreweave.nodepool.kit.kafka.KafkaSecurity;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.kafka.TopicFollower;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.topics.Topics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

/**
 * Lets a REST write wait for the pool processor's answer: follows every committed {@code nodepool-request-decided}
 * record from the moment this instance started ({@link TopicFollower}, so every instance sees every answer) and
 * completes the call waiting for that request of that pool. A request id is the pool's own (the pool processor
 * remembers ids per pool), so a waiter is found by the pool's key and the id together: two orgs that send the same
 * {@code Idempotency-Key} at once each get their own pool's answer. When the pool processor of this instance decided
 * the request, it answers at once, as its transaction commits ({@link #answer}); the topic then brings the same answer
 * again, which finds nobody waiting. Requests are taken once it is positioned at the end.
 */
@ApplicationScoped
public class DecisionWaiter {

    private static final Logger LOG = Logger.getLogger(DecisionWaiter.class);

    @Inject
    KafkaSettings settings;

    @Inject
    KafkaSecurity security;

    /** How long a wait for a moving partition goes on before it asks again whether the partition still moves. */
    private static final Duration MOVE_SLICE = Duration.ofSeconds(1);

    private final Map<String, CompletableFuture<RequestDecided>> waiting = new ConcurrentHashMap<>();
    private TopicFollower decisions;

    void start(@Observes StartupEvent event) {
        decisions = TopicFollower.start(
                settings.bootstrapServers(),
                security,
                "request-decisions",
                List.of(Topics.NODEPOOL_REQUEST_DECIDED.name()),
                TopicFollower.Start.atEnd(),
                (records, positions) -> records.forEach(this::complete));
    }

    private void complete(ConsumerRecord<String, byte[]> record) {
        try {
            answer(record.key(), Json.read(record.value(), RequestDecided.class));
        } catch (RuntimeException e) {
            LOG.warnf(
                    "unreadable request decision at %s-%d@%d: %s",
                    record.topic(), record.partition(), record.offset(), e.getMessage());
        }
    }

    /** Completes the call waiting for {@code decided}'s request of the pool {@code key}, if one does. */
    public void answer(String key, RequestDecided decided) {
        CompletableFuture<RequestDecided> future = waiting.remove(waiterKey(key, decided.requestId()));
        if (future != null) {
            future.complete(decided);
        }
    }

    /** Whether answers can be awaited yet (this instance is positioned on the decisions topic). */
    public boolean ready() {
        return decisions != null && decisions.positioned();
    }

    /**
     * Writes a request with {@code publish} and waits for its answer: null after {@code timeout}. The waiter is
     * registered before the write, so the answer cannot be missed, and removed however the wait ends (a write that
     * fails leaves nothing behind). A second call for the same request of the same pool waits for the same answer.
     */
    public RequestDecided submit(PoolKey pool, String requestId, Runnable publish, Duration timeout) {
        return submit(pool, requestId, publish, timeout, () -> false, Duration.ZERO);
    }

    /**
     * As {@link #submit(PoolKey, String, Runnable, Duration)}, but a wait still unanswered after {@code timeout} goes
     * on, a second at a time, while {@code moving} says the pool's partition is moving to another instance, for up to
     * {@code moveWait} more: the new owner answers it, instead of the caller getting a 504 for a request that is about
     * to be decided.
     */
    public RequestDecided submit(
            PoolKey pool,
            String requestId,
            Runnable publish,
            Duration timeout,
            BooleanSupplier moving,
            Duration moveWait) {
        String key = waiterKey(pool.toString(), requestId);
        CompletableFuture<RequestDecided> answer = waiting.computeIfAbsent(key, k -> new CompletableFuture<>());
        try {
            publish.run();
            long until = System.nanoTime() + timeout.toNanos();
            long limit = until + moveWait.toNanos();
            while (true) {
                try {
                    return answer.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    long now = System.nanoTime();
                    if (now >= limit || !moving.getAsBoolean()) {
                        return null;
                    }
                    until = Math.min(limit, now + MOVE_SLICE.toNanos());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            waiting.remove(key, answer);
        }
    }

    /** How many calls wait for an answer now. */
    int waiting() {
        return waiting.size();
    }

    private static String waiterKey(String pool, String requestId) {
        return pool + "|" + requestId;
    }

    void stop(@Observes ShutdownEvent event) {
        if (decisions != null) {
            decisions.close();
        }
    }
}
