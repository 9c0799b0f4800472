package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.KubeStatus.Cause;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads a {@code nodepool-requested} record: a {@code NodePoolRequested} CloudEvent in structured JSON mode whose
 * {@code subject} is the record key {@code <org>/<pool>}. Anything else is rejected with a code and a reason that
 * end up in the dead-letter headers.
 */
public final class RequestReader implements RecordReader<PoolRequest> {

  public static final String MALFORMED_JSON = "MalformedJson";
  public static final String INVALID_CLOUD_EVENT = "InvalidCloudEvent";
  public static final String UNSUPPORTED_TYPE = "UnsupportedType";
  public static final String KEY_MISMATCH = "KeyMismatch";
  public static final String INVALID_SPEC = "InvalidSpec";

  @Override
  public PoolRequest read(String key, byte[] value) {
    if (value == null) {
      throw new Rejection(INVALID_CLOUD_EVENT, "record has no value");
    }
    JsonNode event;
    try {
      event = Json.mapper().readTree(value);
    } catch (Exception e) {
      throw new Rejection(MALFORMED_JSON, "value is not JSON: " + firstLine(e.getMessage()));
    }
    if (event == null || !event.isObject()) {
      throw new Rejection(INVALID_CLOUD_EVENT, "value is not a JSON object (a CloudEvent in structured mode)");
    }
    String specversion = text(event, "specversion");
    if (!CloudEvent.SPEC_VERSION.equals(specversion)) {
      throw new Rejection(INVALID_CLOUD_EVENT, "specversion must be \"1.0\", was " + event.get("specversion"));
    }
    String id = required(event, "id");
    String source = required(event, "source");
    String type = required(event, "type");
    if (!NodePoolRequested.TYPE.equals(type)) {
      throw new Rejection(UNSUPPORTED_TYPE, "type must be \"" + NodePoolRequested.TYPE + "\", was \"" + type + "\"");
    }
    String subject = required(event, "subject");
    Instant time = time(event);
    String contentType = text(event, "datacontenttype");
    if (contentType != null && !contentType.startsWith(CloudEvent.JSON)) {
      throw new Rejection(INVALID_CLOUD_EVENT, "datacontenttype must be application/json, was \"" + contentType
          + "\"");
    }
    PoolKey poolKey = poolKey(key, subject);
    JsonNode data = event.get("data");
    if (data == null || !data.isObject()) {
      throw new Rejection(INVALID_CLOUD_EVENT, "data must be an object {operation, nodePool}");
    }
    Operation operation = operation(data);
    JsonNode manifest = data.get("nodePool");
    if (manifest == null || !manifest.isObject()) {
      throw new Rejection(INVALID_CLOUD_EVENT, "data.nodePool must be a NodePool object");
    }
    NodePool pool = operation == Operation.DELETE ? deletion(manifest) : manifest(manifest);
    if (!poolKey.pool().equals(pool.name())) {
      throw new Rejection(KEY_MISMATCH, "data.nodePool.metadata.name \"" + pool.name()
          + "\" does not match the pool of the key \"" + key + "\"");
    }
    return new PoolRequest(id, source, poolKey, operation, pool, time, value);
  }

  private static PoolKey poolKey(String key, String subject) {
    if (key == null) {
      throw new Rejection(KEY_MISMATCH, "record has no key; expected <org>/<pool name>");
    }
    if (!key.equals(subject)) {
      throw new Rejection(KEY_MISMATCH, "record key \"" + key + "\" does not match subject \"" + subject + "\"");
    }
    try {
      return PoolKey.parse(key);
    } catch (IllegalArgumentException e) {
      throw new Rejection(KEY_MISMATCH, e.getMessage());
    }
  }

  private static Operation operation(JsonNode data) {
    String op = text(data, "operation");
    if (op == null) {
      throw new Rejection(INVALID_CLOUD_EVENT, "data.operation is required: APPLY or DELETE");
    }
    try {
      return Operation.valueOf(op);
    } catch (IllegalArgumentException e) {
      throw new Rejection(INVALID_CLOUD_EVENT, "data.operation must be APPLY or DELETE, was \"" + op + "\"");
    }
  }

  /** A manifest to create or update: it must pass every structural rule; its status is ignored. */
  private static NodePool manifest(JsonNode manifest) {
    OrgLabel.strip(manifest);
    ManifestValidator.Checked checked = ManifestValidator.check(manifest, ManifestValidator.FieldValidation.Strict);
    List<Cause> causes = checked.causes();
    if (!causes.isEmpty()) {
      throw new Rejection(INVALID_SPEC, "data.nodePool is invalid: " + causes.stream()
          .map(c -> c.field() + ": " + c.message()).collect(Collectors.joining("; ")));
    }
    return bind(checked.manifest());
  }

  /** A deletion names the pool (and optionally preconditions); its spec is not looked at. */
  private static NodePool deletion(JsonNode manifest) {
    JsonNode metadata = manifest.get("metadata");
    if (metadata == null || text(metadata, "name") == null) {
      throw new Rejection(INVALID_CLOUD_EVENT, "data.nodePool.metadata.name is required");
    }
    try {
      return NodePool.of(Json.mapper().treeToValue(metadata,
          com.coreweave.nodepool.schema.resource.ObjectMeta.class), null, null);
    } catch (Exception e) {
      throw new Rejection(INVALID_SPEC, "data.nodePool.metadata is invalid: " + firstLine(e.getMessage()));
    }
  }

  static NodePool bind(JsonNode manifest) {
    try {
      return Json.mapper().treeToValue(manifest, NodePool.class);
    } catch (Exception e) {
      throw new Rejection(INVALID_SPEC, "data.nodePool cannot be read: " + firstLine(e.getMessage()));
    }
  }

  private static Instant time(JsonNode event) {
    String time = text(event, "time");
    if (time == null) {
      return null;
    }
    try {
      return java.time.OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      throw new Rejection(INVALID_CLOUD_EVENT, "time must be an RFC 3339 timestamp, was \"" + time + "\"");
    }
  }

  private static String required(JsonNode node, String field) {
    String value = text(node, field);
    if (value == null || value.isBlank()) {
      throw new Rejection(INVALID_CLOUD_EVENT, field + " is required and must be a non-empty string");
    }
    return value;
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value != null && value.isTextual() ? value.textValue() : null;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
