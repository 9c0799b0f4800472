package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Set;

/**
 * How {@code nodepool-requested} is read (DESIGN.md §3): a {@code NodePoolRequested} CloudEvent in structured JSON mode
 * whose {@code subject} is the record key, with {@code data.operation} and a {@code data.nodePool} object of the keyed
 * pool. The manifest inside stays a JSON tree: its structural rules are the api-service's, shared with REST.
 */
public final class NodePoolRequests {

    private NodePoolRequests() {}

    static final ValueFormat<CloudEvent<JsonNode>> FORMAT =
            new ValueFormat<>("CloudEvent NodePoolRequested", value -> envelope(value, Set.of(NodePoolRequested.TYPE)));

    static final RecordCheck<PoolKey, CloudEvent<JsonNode>> CHECK = NodePoolRequests::check;

    /**
     * A CloudEvent in structured JSON mode of one of {@code types}, its data left as JSON; shared by the inbound topics
     * that carry CloudEvents.
     */
    static CloudEvent<JsonNode> envelope(byte[] value, Set<String> types) {
        JsonNode event;
        try {
            event = Json.mapper().readTree(value);
        } catch (Exception e) {
            throw new Rejection(Code.MALFORMED_JSON, "value is not JSON: " + ValueFormat.firstLine(e.getMessage()));
        }
        if (event == null || !event.isObject()) {
            throw invalid("value is not a JSON object (a CloudEvent in structured mode)");
        }
        if (!CloudEvent.SPEC_VERSION.equals(text(event, "specversion"))) {
            throw invalid("specversion must be \"1.0\", was " + event.get("specversion"));
        }
        String id = required(event, "id");
        String source = required(event, "source");
        String type = required(event, "type");
        if (!types.contains(type)) {
            throw new Rejection(
                    Code.UNSUPPORTED_TYPE,
                    "type must be "
                            + String.join(
                                    " or ",
                                    types.stream()
                                            .sorted()
                                            .map(t -> "\"" + t + "\"")
                                            .toList()) + ", was \"" + type + "\"");
        }
        String subject = required(event, "subject");
        String contentType = text(event, "datacontenttype");
        if (contentType != null && !contentType.startsWith(CloudEvent.JSON)) {
            throw invalid("datacontenttype must be application/json, was \"" + contentType + "\"");
        }
        return new CloudEvent<>(
                CloudEvent.SPEC_VERSION, id, source, type, subject, time(event), contentType, event.get("data"));
    }

    /** The key a CloudEvent of an inbound topic is published under must be its subject; shared like the envelope. */
    static void requireSubject(PoolKey key, CloudEvent<?> event) {
        if (!key.toString().equals(event.subject())) {
            throw new Rejection(
                    Code.KEY_MISMATCH, "record key \"" + key + "\" does not match subject \"" + event.subject() + "\"");
        }
    }

    private static void check(PoolKey key, CloudEvent<JsonNode> event) {
        requireSubject(key, event);
        JsonNode data = event.data();
        if (data == null || !data.isObject()) {
            throw invalid("data must be an object {operation, nodePool}");
        }
        operation(data);
        JsonNode manifest = data.get("nodePool");
        if (manifest == null || !manifest.isObject()) {
            throw invalid("data.nodePool must be a NodePool object");
        }
        JsonNode name = manifest.path("metadata").path("name");
        if (name.isTextual() && !key.pool().equals(name.textValue())) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "data.nodePool.metadata.name \"" + name.textValue() + "\" does not match the pool of the key \""
                            + key + "\"");
        }
    }

    /** The operation of a request's {@code data}; refused when it is not one. */
    public static Operation operation(JsonNode data) {
        String op = text(data, "operation");
        if (op == null) {
            throw invalid("data.operation is required: APPLY or DELETE");
        }
        try {
            return Operation.valueOf(op);
        } catch (IllegalArgumentException e) {
            throw invalid("data.operation must be APPLY or DELETE, was \"" + op + "\"");
        }
    }

    private static Instant time(JsonNode event) {
        String time = text(event, "time");
        if (time == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(time).toInstant();
        } catch (DateTimeParseException e) {
            throw invalid("time must be an RFC 3339 timestamp, was \"" + time + "\"");
        }
    }

    private static String required(JsonNode node, String field) {
        String value = text(node, field);
        if (value == null || value.isBlank()) {
            throw invalid(field + " is required and must be a non-empty string");
        }
        return value;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() ? value.textValue() : null;
    }

    private static Rejection invalid(String reason) {
        return new Rejection(Code.INVALID_CLOUD_EVENT, reason);
    }
}
