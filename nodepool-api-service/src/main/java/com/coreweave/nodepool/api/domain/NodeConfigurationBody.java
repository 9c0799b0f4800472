package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.schema.resource.Statuses.DUPLICATE;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_MANY;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The body of a node-configuration request ({@code /upgrade}, {@code /rollback}, {@code /reconfigure}), checked field
 * by field so that every bad field is reported at once with its path: {@code Upgrade} takes no field, {@code Rollback}
 * a required {@code nodeProfile}, {@code Reconfigure} an optional list {@code nodes} (empty: every outdated node). A
 * request without a body ({@code null}) reads as {@code {}}. Every field is bounded: a pool has at most
 * {@link Limits#MAX_TARGET_NODES} nodes to name, each by a name of at most {@value #MAX_NODE_NAME_LENGTH} characters,
 * and at most {@link Limits#MAX_CAUSES} causes are listed.
 */
public record NodeConfigurationBody(String nodeProfile, List<String> nodes, List<StatusCause> causes) {

    /** The kind an invalid body is reported as. */
    public static final String KIND = "NodeConfigurationRequest";
    /** As long as a DNS label, like every other name of the API. */
    static final int MAX_PROFILE_LENGTH = 63;
    /** A node's name is a Kubernetes object name, a DNS subdomain. */
    static final int MAX_NODE_NAME_LENGTH = 253;

    public NodeConfigurationBody {
        nodes = List.copyOf(nodes);
        causes = List.copyOf(causes);
    }

    public static NodeConfigurationBody read(Action action, JsonNode body) {
        FieldErrors causes = new FieldErrors();
        JsonNode fields = body == null ? Json.mapper().createObjectNode() : body;
        if (!fields.isObject()) {
            causes.add(TYPE_INVALID, "must be a JSON object", "");
            return new NodeConfigurationBody(null, List.of(), causes.list());
        }
        String profile = action == Action.Rollback ? nodeProfile(fields.get("nodeProfile"), causes) : null;
        List<String> nodes = action == Action.Reconfigure ? nodes(fields.get("nodes"), causes) : List.of();
        Set<String> known = switch (action) {
            case Upgrade -> Set.of();
            case Rollback -> Set.of("nodeProfile");
            case Reconfigure -> Set.of("nodes");
        };
        fields.fieldNames().forEachRemaining(f -> {
            if (!known.contains(f)) {
                causes.add(INVALID, "unknown field \"" + FieldErrors.shown(f) + "\"", FieldErrors.shown(f));
            }
        });
        return new NodeConfigurationBody(profile, nodes, causes.list());
    }

    /**
     * The request id: with an idempotency key, the same for every repeat of the same request (so the provisioner
     * applies it once), otherwise unique.
     */
    public static String requestId(PoolKey pool, Action action, String idempotencyKey) {
        if (idempotencyKey == null || idempotencyKey.isBlank()) {
            return UUID.randomUUID().toString();
        }
        String name = pool + "/" + action + "/" + idempotencyKey;
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    private static String nodeProfile(JsonNode value, FieldErrors causes) {
        if (value == null || value.isNull()) {
            causes.add(REQUIRED, "Required value", "nodeProfile");
        } else if (!value.isTextual()) {
            causes.add(
                    TYPE_INVALID,
                    "Invalid value: " + FieldErrors.shown(value.toString()) + ": must be a string",
                    "nodeProfile");
        } else if (value.textValue().isBlank()) {
            causes.add(REQUIRED, "Required value", "nodeProfile");
        } else if (value.textValue().length() > MAX_PROFILE_LENGTH) {
            causes.add(TOO_LONG, "Too long: must have at most " + MAX_PROFILE_LENGTH + " characters", "nodeProfile");
        } else {
            return value.textValue();
        }
        return null;
    }

    private static List<String> nodes(JsonNode value, FieldErrors causes) {
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            causes.add(
                    TYPE_INVALID,
                    "Invalid value: " + FieldErrors.shown(value.toString()) + ": must be a list of node names",
                    "nodes");
            return List.of();
        }
        if (value.size() > Limits.MAX_TARGET_NODES) {
            causes.add(
                    TOO_MANY,
                    "Too many: " + value.size() + ": must have at most " + Limits.MAX_TARGET_NODES + " items",
                    "nodes");
        }
        List<String> names = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode name = value.get(i);
            String path = "nodes[" + i + "]";
            if (!name.isTextual()) {
                causes.add(
                        TYPE_INVALID,
                        "Invalid value: " + FieldErrors.shown(name.toString()) + ": must be a string",
                        path);
            } else if (name.textValue().isBlank()) {
                causes.add(REQUIRED, "Required value", path);
            } else if (name.textValue().length() > MAX_NODE_NAME_LENGTH) {
                causes.add(TOO_LONG, "Too long: must have at most " + MAX_NODE_NAME_LENGTH + " characters", path);
            } else if (!seen.add(name.textValue())) {
                causes.add(DUPLICATE, "Duplicate value: \"" + name.textValue() + "\"", path);
            } else {
                names.add(name.textValue());
            }
        }
        return names;
    }
}
