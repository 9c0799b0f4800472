package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.api.kube.JsonSize;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.RequestDecided.Outcome;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Decides one request against the stored pool, as the Kubernetes API server would: create, replace, apply or delete;
 * preconditions on {@code resourceVersion} and {@code uid}; immutable {@code instanceType} and {@code region};
 * {@code generation} bumped only when the spec changes, {@code resourceVersion} on every write; no write at all for a
 * request that changes nothing; no pool larger than {@link Limits#MAX_POOL_BYTES} as stored. This is where every write
 * of every path (REST verbs, patches, apply, scale, topic requests) ends, with its defaults and managed fields in
 * place, so the size of what is stored is measured here. A refusal is a decision like any other: a Kubernetes
 * {@code Status} in the answer, nothing stored.
 */
public final class PoolDecider {

    public static final String COMPONENT = "nodepool-api-service";

    private PoolDecider() {}

    /**
     * What the processor needs from outside: the time, the new version and uid to use, the default zone, and the
     * version clients see now (a status change after the last write has one of its own).
     */
    public record WriteContext(
            Instant now, String resourceVersion, String newUid, String defaultZone, String currentVersion) {}

    /**
     * The answer to the caller, the pool to store ({@code null}: unchanged) and the events to record;
     * {@code storedBytes} is the stored pool's size as JSON when this decision measured it, -1 otherwise.
     */
    public record Decision(RequestDecided answer, NodePoolAccepted next, List<RecordedEvent> events, long storedBytes) {

        public Decision(RequestDecided answer, NodePoolAccepted next, List<RecordedEvent> events) {
            this(answer, next, events, -1);
        }

        public static Decision refused(PoolRequest request, Status why, Instant now) {
            return new Decision(
                    new RequestDecided(request.id(), Outcome.REJECTED, why.getCode(), null, why, now), null, List.of());
        }

        public boolean isRefusal() {
            return answer.outcome() == Outcome.REJECTED;
        }
    }

    public static Decision decide(
            PoolRequest request,
            NodePoolAccepted current,
            WriteContext ctx,
            Function<NodePoolSpec, PlatformValidator.Verdict> validator) {
        String name = request.key().pool();
        return switch (request.operation()) {
            case DELETE ->
                current == null
                        ? Decision.refused(request, Statuses.notFound(NodePool.KIND, name), ctx.now())
                        : delete(request, current, ctx);
            case CREATE ->
                current != null
                        ? Decision.refused(request, Statuses.alreadyExists(NodePool.KIND, name), ctx.now())
                        : create(request, ctx, validator);
            case REPLACE ->
                current == null
                        ? Decision.refused(request, Statuses.notFound(NodePool.KIND, name), ctx.now())
                        : update(request, current, ctx, validator);
            case APPLY -> {
                if (current != null) {
                    yield update(request, current, ctx, validator);
                }
                // A precondition naming a version of a pool that does not exist cannot hold. (A uid written on a create
                // is
                // ignored, as Kubernetes ignores it.)
                yield request.manifest().metadata().resourceVersion() != null
                        ? Decision.refused(
                                request,
                                Statuses.conflict(
                                        NodePool.KIND,
                                        name,
                                        "the object does not exist, so its resourceVersion precondition cannot hold"),
                                ctx.now())
                        : create(request, ctx, validator);
            }
        };
    }

    private static Decision create(
            PoolRequest request, WriteContext ctx, Function<NodePoolSpec, PlatformValidator.Verdict> validator) {
        ObjectMeta given = request.manifest().metadata();
        Instant created = ctx.now().truncatedTo(ChronoUnit.SECONDS);
        ObjectMeta meta = new ObjectMeta(
                request.key().pool(),
                ctx.newUid(),
                1L,
                ctx.resourceVersion(),
                created,
                null,
                given.labels(),
                given.annotations(),
                request.fromRest() ? given.managedFields() : null);
        NodePoolSpec spec = request.manifest().spec().withDefaults(ctx.defaultZone());
        NodePool pool = NodePool.of(meta, spec, null);
        if (!request.fromRest()) {
            pool = pool.withMetadata(meta.withManagedFields(TopicManagers.after(request, null, pool, ctx.now())));
        }
        long size = JsonSize.of(pool, Limits.MAX_POOL_BYTES);
        Status oversized = WriteRefusals.oversized(pool, size);
        if (oversized != null) {
            return Decision.refused(request, oversized, ctx.now());
        }
        PlatformValidator.Verdict verdict = validator.apply(spec);
        NodePoolAccepted next = new NodePoolAccepted(request.key().org(), pool, verdict.validation(), ctx.now());
        PoolRef ref = PoolRef.of(next);
        List<RecordedEvent> events = new ArrayList<>();
        events.add(DecisionEvents.created(ref, meta.name(), spec, ctx.now()));
        events.addAll(DecisionEvents.findings(ref, verdict, ctx.now()));
        return new Decision(decided(request, Outcome.CREATED, 201, next, ctx), next, events, size);
    }

    private static Decision update(
            PoolRequest request,
            NodePoolAccepted current,
            WriteContext ctx,
            Function<NodePoolSpec, PlatformValidator.Verdict> validator) {
        String name = request.key().pool();
        ObjectMeta stored = current.nodePool().metadata();
        if (stored.deletionTimestamp() != null) {
            return Decision.refused(
                    request, Statuses.conflict(NodePool.KIND, name, "the object is being deleted"), ctx.now());
        }
        Status precondition = WriteRefusals.precondition(request.manifest().metadata(), stored, name, ctx);
        if (precondition != null) {
            return Decision.refused(request, precondition, ctx.now());
        }
        NodePoolSpec spec =
                request.manifest().spec().withDefaults(current.nodePool().spec().region());
        NodePoolSpec old = current.nodePool().spec();
        Status immutable = WriteRefusals.immutable(request, spec, old);
        if (immutable != null) {
            return Decision.refused(request, immutable, ctx.now());
        }
        ObjectMeta given = request.manifest().metadata();
        boolean specChanged = !spec.equals(old);
        boolean metaChanged = !Objects.equals(emptyToNull(given.labels()), emptyToNull(stored.labels()))
                || !Objects.equals(emptyToNull(given.annotations()), emptyToNull(stored.annotations()));
        // The REST API keeps metadata.managedFields (who set which field); for a topic request the principal that
        // wrote it is the manager of what it changed (TopicManagers).
        var managedFields = request.fromRest()
                ? given.managedFields()
                : TopicManagers.afterUpdate(request, current.nodePool(), spec, ctx.now());
        boolean managersChanged = !Objects.equals(managedFields, stored.managedFields());
        if (!specChanged && !metaChanged && !managersChanged) {
            return new Decision(decided(request, Outcome.UNCHANGED, 200, current, ctx), null, List.of());
        }
        long generation = stored.generation() + (specChanged ? 1 : 0);
        ObjectMeta meta = new ObjectMeta(
                name,
                stored.uid(),
                generation,
                ctx.resourceVersion(),
                stored.creationTimestamp(),
                null,
                given.labels(),
                given.annotations(),
                managedFields);
        NodePool pool = NodePool.of(meta, spec, null);
        long size = JsonSize.of(pool, Limits.MAX_POOL_BYTES);
        Status oversized = WriteRefusals.oversized(pool, size);
        if (oversized != null) {
            return Decision.refused(request, oversized, ctx.now());
        }
        PlatformValidator.Verdict verdict =
                specChanged ? validator.apply(spec) : new PlatformValidator.Verdict(current.validation(), List.of());
        // A generation that is not valid leaves the last valid one in force: a refusal never removes anything.
        NodePoolAccepted next = new NodePoolAccepted(
                request.key().org(),
                pool,
                verdict.validation(),
                ctx.now(),
                verdict.validation().valid() ? null : current.keptInForce());
        List<RecordedEvent> events = new ArrayList<>(
                specChanged ? DecisionEvents.findings(PoolRef.of(next), verdict, ctx.now()) : List.of());
        if (specChanged && next.lastValid() != null) {
            events.add(DecisionEvents.notApplied(next, ctx.now()));
        }
        if (metaChanged) {
            events.add(DecisionEvents.metadataUpdated(next, ctx.resourceVersion(), ctx.now()));
        }
        return new Decision(decided(request, Outcome.UPDATED, 200, next, ctx), next, events, size);
    }

    private static Decision delete(PoolRequest request, NodePoolAccepted current, WriteContext ctx) {
        ObjectMeta stored = current.nodePool().metadata();
        Status precondition = WriteRefusals.precondition(
                request.manifest().metadata(), stored, request.key().pool(), ctx);
        if (precondition != null) {
            return Decision.refused(request, precondition, ctx.now());
        }
        if (stored.deletionTimestamp() != null) {
            return new Decision(decided(request, Outcome.UNCHANGED, 200, current, ctx), null, List.of());
        }
        ObjectMeta meta = stored.withResourceVersion(ctx.resourceVersion())
                .withDeletionTimestamp(ctx.now().truncatedTo(ChronoUnit.SECONDS));
        NodePoolAccepted next = new NodePoolAccepted(
                current.org(),
                current.nodePool().withMetadata(meta),
                current.validation(),
                ctx.now(),
                current.lastValid());
        return new Decision(decided(request, Outcome.DELETING, 200, next, ctx), next, List.of());
    }

    private static RequestDecided decided(
            PoolRequest request, Outcome outcome, int code, NodePoolAccepted pool, WriteContext ctx) {
        return new RequestDecided(request.id(), outcome, code, pool.nodePool(), null, ctx.now());
    }

    private static <T extends Map<?, ?>> T emptyToNull(T map) {
        return map == null || map.isEmpty() ? null : map;
    }
}
