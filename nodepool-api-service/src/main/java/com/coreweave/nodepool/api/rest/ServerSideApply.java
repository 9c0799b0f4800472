package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.kube.FieldOwnership;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;

/**
 * Keeps {@code metadata.managedFields} on every write ({@link FieldOwnership}): an apply merges its configuration into
 * the stored pool by field ownership, any other write takes over the fields it changes. An apply's conflict answers 409
 * with one {@code FieldManagerConflict} cause per field, as the API server does.
 */
@ApplicationScoped
class ServerSideApply {

    @Inject
    Clock clock;

    @Inject
    PoolReads reads;

    @Inject
    PoolWrites writes;

    /**
     * Applies {@code config} for the caller's field manager: merged into the pool as stored (or created), checked
     * whole, written on the version read; a lost race with another writer is read and applied again.
     */
    RequestDecided write(PoolKey key, JsonNode config, WriteOptions options) {
        for (int attempt = 1; ; attempt++) {
            NodePool current = reads.view(key).map(PoolView::published).orElse(null);
            JsonNode merged = apply(current, config, options.applyManager(), options.force);
            NodePool next = ManifestBody.bind(ManifestBody.checked(merged, key.pool(), options.fieldValidation())
                    .manifest());
            try {
                return writes.submit(key, current == null ? Operation.CREATE : Operation.REPLACE, next, null, options);
            } catch (ApiException e) {
                if (!PoolWrites.lostRace(e) || attempt == PoolWrites.ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** {@code next} as {@code manager} writes it over {@code current} (null for a create), its managers recorded. */
    NodePool recordUpdate(NodePool current, NodePool next, String manager) {
        return recordUpdate(current, next, null, manager);
    }

    /**
     * As {@link #recordUpdate(NodePool, NodePool, String)}, from the managed fields the write's object gave
     * ({@code given}, {@link FieldOwnership#given}) rather than those stored, when it changed them.
     */
    NodePool recordUpdate(NodePool current, NodePool next, JsonNode given, String manager) {
        List<ManagedFieldsEntry> live =
                current == null ? null : current.metadata().managedFields();
        var entries = FieldOwnership.update(
                current == null ? null : Json.mapper().valueToTree(current),
                FieldOwnership.given(given, live),
                Json.mapper().valueToTree(next),
                manager,
                clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        return next.withMetadata(next.metadata().withManagedFields(entries));
    }

    /** The manifest an apply of {@code config} makes of {@code current} (null when it does not exist yet). */
    JsonNode apply(NodePool current, JsonNode config, String manager, boolean force) {
        ObjectNode live = current == null ? null : Json.mapper().valueToTree(current.withStatus(null));
        try {
            FieldOwnership.Applied applied = FieldOwnership.apply(
                    live,
                    current == null ? null : current.metadata().managedFields(),
                    config,
                    manager,
                    force,
                    clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
            ObjectNode object = (ObjectNode) applied.object();
            ((ObjectNode) object.with("metadata"))
                    .set("managedFields", Json.mapper().valueToTree(applied.managedFields()));
            if (current != null) {
                ((ObjectNode) object.get("metadata"))
                        .put("resourceVersion", current.metadata().resourceVersion());
            }
            return object;
        } catch (FieldOwnership.Conflicts e) {
            String name = config.path("metadata").path("name").asText();
            List<StatusCause> causes = e.conflicts().stream()
                    .map(c -> Statuses.cause("FieldManagerConflict", c.message(), c.field()))
                    .toList();
            throw new ApiException(Statuses.failure(
                    409,
                    "Conflict",
                    e.getMessage(),
                    Statuses.details(name, "compute.coreweave.com", "nodepools", causes)));
        }
    }
}
