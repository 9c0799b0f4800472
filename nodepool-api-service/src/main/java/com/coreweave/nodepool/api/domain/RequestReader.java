package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.NodePoolRequests;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.coreweave.nodepool.schema.topics.Topics;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Turns a {@code nodepool-requested} CloudEvent, which the topic's registry entry has read and checked, into a request
 * for the pool processor: the manifest of an APPLY must pass every structural rule the REST API applies
 * ({@link ManifestValidator}), a DELETE names the pool. Anything else is rejected with a code and a reason that end up
 * in the dead-letter headers: for an invalid manifest its first causes and how many more, in at most
 * {@link Limits#MAX_DLQ_REASON_BYTES}. The topology reads the topic with {@link #interpret} (a method, not the kit's
 * interface, so the domain knows nothing of streams).
 */
public final class RequestReader {

    /** The whole reading of one record: the topic's checks, then this one's. */
    public PoolRequest read(String key, byte[] value, String tenantOrg) {
        return interpret(key, Topics.NODEPOOL_REQUESTED.read(key, value), value, tenantOrg);
    }

    /** {@code tenantOrg}: the org whose own topic the record was read from, null for the shared topic. */
    public PoolRequest interpret(String key, CloudEvent<JsonNode> event, byte[] raw, String tenantOrg) {
        if (tenantOrg != null && PoolRequest.REST_SOURCE.equals(event.source())) {
            // REST's requests skip what a topic request is held to (managedFields kept, answers instead of dead
            // letters).
            throw new Rejection(
                    Code.FORBIDDEN,
                    "source " + PoolRequest.REST_SOURCE + " is the API's own; a tenant topic cannot use it");
        }
        PoolKey poolKey = PoolKey.parse(key);
        JsonNode data = event.data();
        Operation operation = NodePoolRequests.operation(data);
        JsonNode manifest = data.get("nodePool");
        NodePool pool = operation == Operation.DELETE ? deletion(manifest) : manifest(manifest);
        if (!poolKey.pool().equals(pool.name())) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "data.nodePool.metadata.name \"" + pool.name() + "\" does not match the pool of the key \"" + key
                            + "\"");
        }
        return new PoolRequest(event.id(), event.source(), tenantOrg, poolKey, operation, pool, event.time(), raw);
    }

    /** A manifest to create or update: it must pass every structural rule; its status is ignored. */
    private static NodePool manifest(JsonNode manifest) {
        OrgLabel.strip(manifest);
        ManifestValidator.Checked checked = ManifestValidator.check(manifest, ManifestValidator.FieldValidation.Strict);
        if (!checked.found().isEmpty()) {
            throw new Rejection(
                    Code.INVALID_SPEC,
                    checked.found().summary("data.nodePool is invalid: ", Limits.MAX_DLQ_REASON_BYTES));
        }
        return bind(checked.manifest());
    }

    /** A deletion names the pool (and optionally preconditions); its spec is not looked at. */
    private static NodePool deletion(JsonNode manifest) {
        JsonNode metadata = manifest.get("metadata");
        if (metadata == null || !metadata.path("name").isTextual()) {
            throw new Rejection(Code.INVALID_CLOUD_EVENT, "data.nodePool.metadata.name is required");
        }
        try {
            return NodePool.of(Json.mapper().treeToValue(metadata, ObjectMeta.class), null, null);
        } catch (Exception e) {
            throw new Rejection(Code.INVALID_SPEC, "data.nodePool.metadata is invalid: " + firstLine(e.getMessage()));
        }
    }

    static NodePool bind(JsonNode manifest) {
        try {
            return Json.mapper().treeToValue(manifest, NodePool.class);
        } catch (Exception e) {
            throw new Rejection(Code.INVALID_SPEC, "data.nodePool cannot be read: " + firstLine(e.getMessage()));
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
