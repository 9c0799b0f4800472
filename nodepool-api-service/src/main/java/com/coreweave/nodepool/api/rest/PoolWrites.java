package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.PlatformValidator;
import com.coreweave.nodepool.api.domain.PoolDecider;
import com.coreweave.nodepool.api.domain.PoolRequest;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.messaging.DecisionWaiter;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A REST write goes the same way as a request a platform team publishes: a {@code NodePoolRequested} CloudEvent on
 * {@code nodepool-requested}, decided by the pool processor. The call waits for that decision and answers with it.
 */
@ApplicationScoped
public class PoolWrites {

    /** How often a write that lost a race with another writer is read and tried again. */
    static final int ATTEMPTS = 5;

    @Inject
    RecordPublisher publisher;

    @Inject
    DecisionWaiter waiter;

    @Inject
    ApiSettings settings;

    @Inject
    Clock clock;

    @Inject
    PoolReads reads;

    /**
     * Publishes the request and returns the pool processor's accepted answer; a refusal becomes the matching
     * {@link ApiException}. With an {@code idempotencyKey}, a repeated call gets the first call's answer.
     */
    public RequestDecided submit(
            PoolKey key, Operation operation, NodePool manifest, String idempotencyKey, WriteOptions options) {
        if (options.dryRun()) {
            return dryRun(key, operation, manifest);
        }
        if (!waiter.ready()) {
            throw ApiException.unavailable("the API is starting; retry shortly");
        }
        // The pool processor remembers request ids per pool, so a key is the caller's own org's and pool's.
        String id = idempotencyKey == null || idempotencyKey.isBlank()
                ? UUID.randomUUID().toString()
                : "idempotency-key:" + idempotencyKey;
        CloudEvent<NodePoolRequested> event = CloudEvent.of(
                id,
                PoolRequest.REST_SOURCE,
                NodePoolRequested.TYPE,
                key.toString(),
                clock.instant(),
                new NodePoolRequested(operation, manifest));
        long sent = System.nanoTime();
        RequestDecided decided = waiter.submit(
                key,
                id,
                () -> publisher.publish(Topics.NODEPOOL_REQUESTED.name(), key.toString(), event),
                settings.requestTimeout(),
                () -> reads.moving(key),
                settings.moveWait());
        if (decided == null) {
            throw ApiException.timeout("the request " + id + " was written but not decided within "
                    + Duration.ofNanos(System.nanoTime() - sent).toSeconds() + "s; it may still take effect");
        }
        if (decided.outcome() == RequestDecided.Outcome.REJECTED) {
            throw new ApiException(decided.error());
        }
        return decided;
    }

    /**
     * Writes what {@code change} makes of the pool as stored. Without a precondition of the caller's, the write is
     * conditional on the version read, and a lost race with another writer reads again and re-applies the change.
     */
    public NodePool rewrite(
            PoolKey key, WriteOptions options, boolean callerPrecondition, UnaryOperator<NodePool> change) {
        for (int attempt = 1; ; attempt++) {
            NodePool current = reads.view(key)
                    .map(PoolView::published)
                    .orElseThrow(() -> ApiException.notFound(NodePool.KIND, key.pool()));
            NodePool next = change.apply(current);
            if (next.metadata().resourceVersion() == null) {
                next = next.withMetadata(
                        next.metadata().withResourceVersion(current.metadata().resourceVersion()));
            }
            try {
                return submit(key, Operation.REPLACE, next, null, options).nodePool();
            } catch (ApiException e) {
                if (callerPrecondition || !lostRace(e) || attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** Whether a write failed only because another writer changed the pool after this one read it. */
    static boolean lostRace(ApiException e) {
        return e.status().getCode() == 409 && "Conflict".equals(e.status().getReason());
    }

    /**
     * Decides the request here, exactly as the pool processor would against the pool as stored, and stores nothing:
     * what {@code dryRun=All} (kubectl's --dry-run=server, kubectl diff) asks for.
     */
    private RequestDecided dryRun(PoolKey key, Operation operation, NodePool manifest) {
        PoolView view = reads.view(key).orElse(null);
        Instant now = clock.instant();
        PoolRequest request = new PoolRequest(
                "dry-run:" + UUID.randomUUID(), PoolRequest.REST_SOURCE, null, key, operation, manifest, now, null);
        String version = view == null ? null : view.version();
        boolean catalogued = !reads.instanceTypes().isEmpty();
        PoolDecider.Decision decision = PoolDecider.decide(
                request,
                view == null ? null : view.accepted(),
                new PoolDecider.WriteContext(
                        now, version, UUID.randomUUID().toString(), settings.defaultZone(), version),
                spec -> PlatformValidator.judge(
                        spec, type -> reads.instanceType(type).orElse(null), catalogued));
        RequestDecided answer = decision.answer();
        if (answer.outcome() == RequestDecided.Outcome.REJECTED) {
            throw new ApiException(answer.error());
        }
        // The pool as it would be stored, with the status it has now (kubectl diff compares whole objects).
        return view == null || answer.nodePool() == null
                ? answer
                : new RequestDecided(
                        answer.requestId(),
                        answer.outcome(),
                        answer.code(),
                        answer.nodePool().withStatus(view.published().status()),
                        null,
                        answer.decidedAt());
    }
}
