package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.DecisionEvents;
import com.coreweave.nodepool.api.domain.PoolDecider;
import com.coreweave.nodepool.api.domain.PoolFaultPoints;
import com.coreweave.nodepool.api.domain.PoolRequest;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.StoredSize;
import com.coreweave.nodepool.api.kube.ResourceVersions;
import com.coreweave.nodepool.kit.audit.AuditBounds;
import com.coreweave.nodepool.kit.audit.AuditEvent;
import com.coreweave.nodepool.kit.audit.AuditEvents;
import com.coreweave.nodepool.kit.audit.AuditLog;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.streams.commit.PromptCommits;
import com.coreweave.nodepool.kit.streams.io.Inputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.topics.AuditKeys;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topics;
import io.fabric8.kubernetes.api.model.Status;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.jboss.logging.Logger;

/**
 * Request decision: answers each request of {@code nodepool-requested} once ({@link PoolDecider}), stores and publishes
 * the accepted pool, and sends a refused topic request to {@code nodepool-requested-dlq} with a Warning on the pool,
 * since its writer has no HTTP answer to read.
 */
final class RequestDecision {

    private static final Logger LOG = Logger.getLogger(RequestDecision.class);

    private final PoolStores stores;
    private final StatusAggregation status;
    private final ApiSettings settings;
    private final Clock clock;
    private final BiConsumer<String, RequestDecided> answered;

    RequestDecision(
            PoolStores stores,
            StatusAggregation status,
            ApiSettings settings,
            Clock clock,
            BiConsumer<String, RequestDecided> answered) {
        this.stores = stores;
        this.status = status;
        this.settings = settings;
        this.clock = clock;
        this.answered = answered;
    }

    /** {@code appended}: the record's timestamp, the broker's own on a topic outside parties write. */
    void onRequest(String key, PoolRequest request, Instant now, Instant appended) {
        String requestKey = key + "|" + request.id();
        RequestDecided earlier = stores.requestIds.get(requestKey);
        if (earlier != null) {
            // A repeated id changes nothing; the earlier answer is given again for a caller retrying with it.
            answer(key, request, earlier, now, appended);
            return;
        }
        PoolView view = stores.views.get(key);
        String current = view == null ? null : view.version();
        // A uid must be unique across clusters and resets, so it is random (a transaction that aborts takes its uid
        // with it, so a replay cannot leak a second one).
        PoolDecider.WriteContext write = new PoolDecider.WriteContext(
                now,
                ResourceVersions.next(current, now),
                UUID.randomUUID().toString(),
                settings.defaultZone(),
                current);
        PoolKey pool = PoolKey.parse(key);
        OrgPoolCount usage = request.operation() == Operation.DELETE ? null : stores.counts.of(pool.org());
        PoolDecider.Decision decision = view == null ? overCountQuota(pool, request, usage, now) : null;
        if (decision == null) {
            decision = PoolDecider.decide(
                    request, view == null ? null : view.accepted(), write, spec -> stores.judge(key, spec));
        }
        if (view != null && decision.next() != null) {
            Status failure = PoolFaultPoints.requestFailure(stores.faults, view.accepted(), now);
            if (failure != null) {
                decision = PoolDecider.Decision.refused(request, failure, now);
                if (request.fromRest()) {
                    // A topic request's refusal is told on the pool as it is dead-lettered; a REST caller's here.
                    status.onEvent(key, DecisionEvents.refused(request, view.accepted(), failure, now));
                }
            }
        }
        // What the pool counts against its org's storage quota before and after (a delete is never held to it).
        long before = view == null || decision.next() == null ? 0 : StoredSize.counted(view.accepted());
        long after = decision.next() == null ? 0 : StoredSize.counted(decision.next(), decision.storedBytes());
        if (usage != null && decision.next() != null) {
            Status refusal = settings.poolStorageQuota().refusal(pool.org(), pool.pool(), usage.bytes(), before, after);
            decision = refusal == null ? decision : PoolDecider.Decision.refused(request, refusal, now);
        }
        stores.rememberRequest(requestKey, decision.answer());
        answer(key, request, decision.answer(), now, appended);
        if (decision.isRefusal() && !request.fromRest()) {
            deadLetter(key, request, view, decision.answer(), now);
        }
        if (decision.next() != null) {
            NodePoolAccepted next = decision.next();
            PoolView updated =
                    view == null || !view.uid().equals(next.uid()) ? PoolView.of(next) : view.withAccepted(next);
            if (view == null) {
                stores.counts.created(next.org(), after);
            } else {
                stores.counts.resized(next.org(), after - before);
            }
            stores.trackValidation(key, next);
            stores.publishAccepted(key, next);
            status.publish(key, updated, now);
        }
        decision.events().forEach(e -> status.onEvent(key, e));
    }

    /**
     * A request that would create a pool the org has no room for under its pool count quota, refused; null when it
     * creates none or has room (a request for a pool that exists never counts against the quota).
     */
    private PoolDecider.Decision overCountQuota(PoolKey pool, PoolRequest request, OrgPoolCount usage, Instant now) {
        if (request.operation() != Operation.CREATE && request.operation() != Operation.APPLY) {
            return null;
        }
        Status refusal = settings.poolCountQuota().refusal(pool.org(), pool.pool(), usage.pools());
        return refusal == null ? null : PoolDecider.Decision.refused(request, refusal, now);
    }

    /**
     * Publishes the answer to every instance's waiting REST call; a REST call waiting in this instance gets it as soon
     * as the transaction commits, a topic's round trip earlier.
     */
    private void answer(String key, PoolRequest request, RequestDecided answer, Instant now, Instant appended) {
        stores.emit(key, Outbound.to(Topics.NODEPOOL_REQUEST_DECIDED, answer));
        if (request.fromRest()) {
            PromptCommits.afterCommit(() -> answered.accept(key, answer));
        } else {
            audit(key, request, answer, now, appended);
        }
    }

    /**
     * One audit line for a topic request's decision (a REST request's is its HTTP answer's, service-kit's AuditFilter,
     * so it is not written twice). Its user is the Kafka principal that could write the request:
     *
     * <ul>
     *   <li>an org's own topic: that org's, {@code tenant-<org>}, the only principal its ACL lets write it;
     *   <li>the shared topic: its CloudEvent source, as given; on a secured broker only the services (the provisioner's
     *       autoscaler) and operators write it, so it names one of them.
     * </ul>
     *
     * The source is kept as an annotation either way; the time it was received is the record's (the broker's), not the
     * CloudEvent's {@code time}, which its writer chose. Its auditID comes from the pool and the request id, so that a
     * transaction that aborts and is processed again writes the same event again, which a reader can drop. It goes to
     * {@code audit-events} in the decision's transaction (one small record) and to the local file.
     */
    private void audit(String key, PoolRequest request, RequestDecided answer, Instant now, Instant appended) {
        try {
            PoolKey pool = request.key() != null ? request.key() : PoolKey.parse(key);
            String record = stores.context()
                    .recordMetadata()
                    .map(m -> "kafka:" + m.topic() + "/" + m.partition() + "/" + m.offset())
                    .orElse("kafka:" + Topics.NODEPOOL_REQUESTED.name());
            AuditEvent event = AuditBounds.bounded(AuditEvents.of(new AuditEvents.TopicWrite(
                    UUID.nameUUIDFromBytes((key + "|" + request.id()).getBytes(StandardCharsets.UTF_8))
                            .toString(),
                    request.id(),
                    request.tenantOrg() != null ? TenantTopics.principal(request.tenantOrg()) : request.source(),
                    request.source(),
                    pool.org(),
                    request.operation(),
                    pool.pool(),
                    record,
                    answer.code(),
                    answer.error(),
                    answer.nodePool() == null || answer.nodePool().metadata() == null
                            ? null
                            : answer.nodePool().metadata().generation(),
                    appended,
                    now,
                    ApiTopology.SERVICE)));
            String line = AuditLog.write(event);
            if (line != null) {
                stores.context()
                        .forward(new Record<>(
                                AuditKeys.of(pool.org()),
                                Outbound.to(Topics.AUDIT_EVENTS, line.getBytes(StandardCharsets.UTF_8)),
                                now.toEpochMilli()));
            }
        } catch (RuntimeException e) {
            // The decision stands whether or not it could be audited.
            LOG.errorf(e, "cannot audit the decision of request %s for %s", request.id(), key);
        }
    }

    private void deadLetter(String key, PoolRequest request, PoolView view, RequestDecided refused, Instant now) {
        RecordMetadata meta = stores.context().recordMetadata().orElseThrow();
        var why = refused.error();
        Code code = Objects.requireNonNullElse(Code.ofHeader(why.getReason()), Code.INVALID);
        var headers = Inputs.headers(
                new Rejection(code, FieldErrors.reason(why, Limits.MAX_DLQ_REASON_BYTES)),
                meta.topic(),
                meta.partition(),
                meta.offset(),
                ApiTopology.SERVICE,
                clock);
        stores.context()
                .forward(new Record<>(
                        key, Outbound.to(Topics.NODEPOOL_REQUESTED_DLQ, request.raw()), now.toEpochMilli(), headers));
        if (view != null) {
            // A platform team without access to the DLQ sees on the pool itself why its request changed nothing.
            status.onEvent(key, DecisionEvents.refused(request, view.accepted(), why, now));
        }
    }
}
