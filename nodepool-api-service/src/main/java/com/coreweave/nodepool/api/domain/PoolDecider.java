package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.api.kube.FieldOwnership;
import com.coreweave.nodepool.api.kube.JsonSize;
import com.coreweave.nodepool.api.kube.ResourceVersions;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.RequestDecided.Outcome;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.topics.TenantTopics;
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

    /**
     * The managers after a topic request: an org topic's record is its org's principal's ({@code tenant-<org>}, whom
     * the broker authenticated), an update of the fields it changed, as Kubernetes records a write's manager; a record
     * of the shared topic (a service's own, e.g. the autoscaler's) changes no manager.
     */
    static List<ManagedFieldsEntry> topicManagers(PoolRequest request, NodePool current, NodePool next, Instant now) {
        List<ManagedFieldsEntry> stored =
                current == null ? null : current.metadata().managedFields();
        if (request.tenantOrg() == null) {
            return stored;
        }
        return FieldOwnership.update(
                current == null ? null : Json.mapper().valueToTree(current.withStatus(null)),
                stored,
                Json.mapper().valueToTree(next.withStatus(null)),
                TenantTopics.principal(request.tenantOrg()),
                now.truncatedTo(ChronoUnit.SECONDS));
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
            pool = pool.withMetadata(meta.withManagedFields(topicManagers(request, null, pool, ctx.now())));
        }
        long size = JsonSize.of(pool, Limits.MAX_POOL_BYTES);
        Status oversized = oversized(pool, size);
        if (oversized != null) {
            return Decision.refused(request, oversized, ctx.now());
        }
        PlatformValidator.Verdict verdict = validator.apply(spec);
        NodePoolAccepted next = new NodePoolAccepted(request.key().org(), pool, verdict.validation(), ctx.now());
        PoolRef ref = PoolRef.of(next);
        List<RecordedEvent> events = new ArrayList<>();
        events.add(RecordedEvent.ofPool(
                ref,
                CwEvent.CWNodePoolCreated,
                "NodePool " + meta.name() + " created: " + spec.target() + " x " + spec.instanceType() + " in "
                        + spec.region() + ".",
                ref.uid(),
                COMPONENT,
                ctx.now()));
        events.addAll(findings(ref, verdict, ctx.now()));
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
        Status precondition = preconditionFailure(request.manifest().metadata(), stored, name, ctx);
        if (precondition != null) {
            return Decision.refused(request, precondition, ctx.now());
        }
        NodePoolSpec spec =
                request.manifest().spec().withDefaults(current.nodePool().spec().region());
        NodePoolSpec old = current.nodePool().spec();
        FieldErrors immutable = new FieldErrors();
        if (!Objects.equals(spec.instanceType(), old.instanceType())) {
            immutable.add(
                    Statuses.INVALID,
                    "Invalid value: \"" + spec.instanceType() + "\": field is immutable",
                    "spec.instanceType");
        }
        String requestedRegion = request.manifest().spec().region();
        if (requestedRegion != null && !requestedRegion.equals(old.region())) {
            immutable.add(
                    Statuses.INVALID, "Invalid value: \"" + requestedRegion + "\": field is immutable", "spec.region");
        }
        if (!immutable.isEmpty()) {
            return Decision.refused(request, immutable.invalid(NodePool.KIND, name), ctx.now());
        }
        ObjectMeta given = request.manifest().metadata();
        boolean specChanged = !spec.equals(old);
        boolean metaChanged = !Objects.equals(emptyToNull(given.labels()), emptyToNull(stored.labels()))
                || !Objects.equals(emptyToNull(given.annotations()), emptyToNull(stored.annotations()));
        // The REST API keeps metadata.managedFields (who set which field); for a topic request the principal that
        // wrote it is the manager of what it changed (topicManagers).
        var managedFields = request.fromRest()
                ? given.managedFields()
                : topicManagers(
                        request,
                        current.nodePool(),
                        NodePool.of(
                                new ObjectMeta(
                                        name,
                                        stored.uid(),
                                        stored.generation(),
                                        stored.resourceVersion(),
                                        stored.creationTimestamp(),
                                        null,
                                        given.labels(),
                                        given.annotations(),
                                        stored.managedFields()),
                                spec,
                                null),
                        ctx.now());
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
        Status oversized = oversized(pool, size);
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
        List<RecordedEvent> events =
                new ArrayList<>(specChanged ? findings(PoolRef.of(next), verdict, ctx.now()) : List.of());
        if (specChanged && next.lastValid() != null) {
            events.add(notApplied(next, ctx.now()));
        }
        if (metaChanged) {
            events.add(RecordedEvent.ofPool(
                    PoolRef.of(next),
                    CwEvent.CWNodePoolMetadata,
                    "NodePool metadata updated.",
                    next.uid() + "/rv/" + ctx.resourceVersion(),
                    COMPONENT,
                    ctx.now()));
        }
        return new Decision(decided(request, Outcome.UPDATED, 200, next, ctx), next, events, size);
    }

    private static Decision delete(PoolRequest request, NodePoolAccepted current, WriteContext ctx) {
        ObjectMeta stored = current.nodePool().metadata();
        Status precondition = preconditionFailure(
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

    /** The Warning on an existing pool that a topic request for it was refused, and why. */
    public static RecordedEvent refused(PoolRequest request, NodePoolAccepted current, Status why, Instant now) {
        PoolRef ref = PoolRef.of(current);
        return RecordedEvent.ofPool(
                ref,
                CwEvent.CWNodePoolNodesRequestFailed,
                "Request " + request.id() + " from " + request.source() + " was refused (" + why.getReason() + "): "
                        + why.getMessage(),
                ref.uid() + "/request/" + request.id(),
                COMPONENT,
                now);
    }

    /** The Warning that an invalid generation was not applied, and which one stays in force. */
    public static RecordedEvent notApplied(NodePoolAccepted next, Instant now) {
        PoolRef ref = PoolRef.of(next);
        return RecordedEvent.ofPool(
                ref,
                CwEvent.CWNodePoolNodesRequestFailed,
                "Generation " + next.generation()
                        + " of NodePool " + ref.pool() + " was not applied: "
                        + next.validation().message() + " Generation "
                        + next.lastValid().generation() + " stays in force.",
                ref.uid() + "/" + ref.generation() + "/not-applied",
                COMPONENT,
                now);
    }

    /** Why the request's preconditions ({@code resourceVersion}, {@code uid}) do not hold, or null when they do. */
    private static Status preconditionFailure(ObjectMeta given, ObjectMeta stored, String name, WriteContext ctx) {
        if (given == null) {
            return null;
        }
        String current = ctx.currentVersion() == null ? stored.resourceVersion() : ctx.currentVersion();
        if (given.resourceVersion() != null
                && !ResourceVersions.holds(given.resourceVersion(), stored.resourceVersion(), current)) {
            return Statuses.conflict(
                    NodePool.KIND,
                    name,
                    "the object has been modified; please apply your changes to the latest version and try again");
        }
        if (given.uid() != null && !given.uid().equals(stored.uid())) {
            return Statuses.conflict(
                    NodePool.KIND,
                    name,
                    "Precondition failed: UID in precondition: " + given.uid() + ", UID in object meta: "
                            + stored.uid());
        }
        return null;
    }

    /**
     * Why {@code pool}, of {@code size} bytes as measured up to the bound, is too large to store, or null. It is
     * measured as JSON, as it is written: escapes can make a value six times its UTF-8 size, so the bounds of labels
     * and annotations alone do not bound it, and managed fields grow with the fields set. The cause names the larger of
     * metadata and spec.
     */
    private static Status oversized(NodePool pool, long size) {
        if (size <= Limits.MAX_POOL_BYTES) {
            return null;
        }
        long metadata = JsonSize.of(pool.metadata(), Long.MAX_VALUE);
        long spec = JsonSize.of(pool.spec(), Long.MAX_VALUE);
        return FieldErrors.one(
                        Statuses.TOO_LONG,
                        "Too long: the NodePool as stored (metadata with managedFields, and spec) must have at most "
                                + Limits.MAX_POOL_BYTES + " bytes of JSON, this one would have "
                                + JsonSize.of(pool, Long.MAX_VALUE)
                                + " (metadata " + metadata + ", spec " + spec + ")",
                        metadata >= spec ? "metadata" : "spec")
                .invalid(NodePool.KIND, pool.name());
    }

    private static List<RecordedEvent> findings(PoolRef ref, PlatformValidator.Verdict verdict, Instant now) {
        return verdict.events().stream()
                .map(f -> RecordedEvent.ofPool(
                        ref, f.event(), f.message(), ref.uid() + "/" + ref.generation(), COMPONENT, now))
                .toList();
    }

    private static RequestDecided decided(
            PoolRequest request, Outcome outcome, int code, NodePoolAccepted pool, WriteContext ctx) {
        return new RequestDecided(request.id(), outcome, code, pool.nodePool(), null, ctx.now());
    }

    private static <T extends Map<?, ?>> T emptyToNull(T map) {
        return map == null || map.isEmpty() ? null : map;
    }
}
