package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Pattern;

/**
 * The checks every topic's values share: a pool reference is complete and matches the key, a node is named, a value is
 * a JSON object that binds. Each family's own rules are in its class ({@link PoolRecordChecks},
 * {@link CapacityRecordChecks}, {@link NodeRecordChecks}, {@link WorkloadRecordChecks}): written once, so every service
 * that reads a topic refuses exactly the same records.
 */
final class RecordChecks {

    private RecordChecks() {}

    /** A Kubernetes Node name: a DNS-1123 subdomain. */
    private static final Pattern NODE_NAME =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static void pool(PoolKey key, PoolRef pool) {
        complete(pool);
        sameKey(key, pool.org(), pool.pool());
    }

    static void complete(PoolRef pool) {
        if (pool == null
                || blank(pool.org())
                || blank(pool.pool())
                || blank(pool.uid())
                || blank(pool.zone())
                || blank(pool.instanceType())) {
            throw invalid("the pool reference needs org, pool, uid, zone and instanceType");
        }
    }

    static void sameKey(PoolKey key, String org, String pool) {
        if (!key.org().equals(org) || !key.pool().equals(pool)) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "key '" + key + "' does not match the pool named in the value, '" + org + "/" + pool + "'");
        }
    }

    static void nodeName(String node) {
        if (node == null || node.length() > 253 || !NODE_NAME.matcher(node).matches()) {
            throw invalid("'" + node + "' is not a node name (a DNS-1123 subdomain)");
        }
    }

    static JsonNode tree(byte[] bytes, String type) {
        JsonNode tree;
        try {
            tree = Json.mapper().readTree(bytes);
        } catch (Exception e) {
            throw new Rejection(Code.MALFORMED_JSON, "value is not JSON: " + ValueFormat.firstLine(e.getMessage()));
        }
        if (tree == null || !tree.isObject()) {
            throw invalid("value is not a JSON object (a " + type + ")");
        }
        return tree;
    }

    static <T> T bind(JsonNode tree, Class<T> type) {
        try {
            return Json.mapper().treeToValue(tree, type);
        } catch (Exception e) {
            throw invalid("value is not a " + type.getSimpleName() + ": " + ValueFormat.firstLine(e.getMessage()));
        }
    }

    static Rejection invalid(String reason) {
        return new Rejection(Code.INVALID_RECORD, reason);
    }

    static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    static boolean segment(String value) {
        return !blank(value) && !value.contains("/");
    }
}
