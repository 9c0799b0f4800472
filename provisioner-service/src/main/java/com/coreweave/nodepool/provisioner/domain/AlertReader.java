package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a {@code node-alert-raised} record, which monitoring publishes: keyed {@code <org>/<pool>}, a CloudEvent in
 * structured JSON mode of type {@code NodeAlertRaised} or {@code NodeAlertResolved} whose {@code subject} is the key,
 * its {@code data} naming the node and the alert (optional {@code details}). An alert name the catalogue does not
 * know is read all the same: it is recorded, never acted on. Anything else is rejected with a code and a reason for
 * the dead-letter headers.
 */
public final class AlertReader implements RecordReader<CloudEvent<NodeAlert>> {

  public static final String MALFORMED_JSON = "MalformedJson";
  public static final String INVALID_CLOUD_EVENT = "InvalidCloudEvent";
  public static final String UNSUPPORTED_TYPE = "UnsupportedType";
  public static final String KEY_MISMATCH = "KeyMismatch";
  public static final String INVALID_ALERT = "InvalidAlert";

  private static final Set<String> TYPES = Set.of(NodeAlert.RAISED, NodeAlert.RESOLVED);
  /** An alert name as monitoring rules name them (it becomes a condition reason and a taint value). */
  private static final Pattern ALERT_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,62}");
  private static final int MAX_DETAILS = 1024;

  @Override
  public CloudEvent<NodeAlert> read(String key, byte[] value) {
    PoolKey poolKey = RecordReader.poolKey(key);
    if (value == null) {
      throw new Rejection(INVALID_CLOUD_EVENT, "record has no value");
    }
    JsonNode event;
    try {
      event = Json.mapper().readTree(value);
    } catch (Exception e) {
      throw new Rejection(MALFORMED_JSON, "value is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (event == null || !event.isObject()) {
      throw new Rejection(INVALID_CLOUD_EVENT, "value is not a JSON object (a CloudEvent in structured mode)");
    }
    if (!CloudEvent.SPEC_VERSION.equals(event.path("specversion").asText(null))) {
      throw new Rejection(INVALID_CLOUD_EVENT, "specversion must be \"1.0\", was " + event.get("specversion"));
    }
    String id = required(event, "id", INVALID_CLOUD_EVENT);
    String source = required(event, "source", INVALID_CLOUD_EVENT);
    String type = required(event, "type", INVALID_CLOUD_EVENT);
    if (!TYPES.contains(type)) {
      throw new Rejection(UNSUPPORTED_TYPE, "type must be \"" + NodeAlert.RAISED + "\" or \"" + NodeAlert.RESOLVED
          + "\", was \"" + type + "\"");
    }
    String subject = required(event, "subject", INVALID_CLOUD_EVENT);
    if (!subject.equals(poolKey.toString())) {
      throw new Rejection(KEY_MISMATCH, "subject \"" + subject + "\" does not match the key \"" + key + "\"");
    }
    String contentType = event.path("datacontenttype").asText(null);
    if (contentType != null && !contentType.startsWith(CloudEvent.JSON)) {
      throw new Rejection(INVALID_CLOUD_EVENT, "datacontenttype must be application/json, was \"" + contentType
          + "\"");
    }
    JsonNode data = event.get("data");
    if (data == null || !data.isObject()) {
      throw new Rejection(INVALID_ALERT, "data must be an object {node, alert, details}");
    }
    String node = required(data, "node", INVALID_ALERT);
    String alert = required(data, "alert", INVALID_ALERT);
    if (!ALERT_NAME.matcher(alert).matches()) {
      throw new Rejection(INVALID_ALERT, "data.alert must be an alert name (a letter, then letters, digits, '_', "
          + "'.' or '-', at most 63), was \"" + alert + "\"");
    }
    JsonNode details = data.get("details");
    if (details != null && !details.isNull() && (!details.isTextual() || details.asText().length() > MAX_DETAILS)) {
      throw new Rejection(INVALID_ALERT, "data.details must be a string of at most " + MAX_DETAILS + " characters");
    }
    return new CloudEvent<>(CloudEvent.SPEC_VERSION, id, source, type, subject, time(event), CloudEvent.JSON,
        new NodeAlert(node, alert, details == null || details.isNull() ? null : details.asText()));
  }

  private static Instant time(JsonNode event) {
    JsonNode time = event.get("time");
    if (time == null || time.isNull()) {
      return null;
    }
    try {
      return Instant.parse(time.asText());
    } catch (DateTimeParseException e) {
      throw new Rejection(INVALID_CLOUD_EVENT, "time must be an RFC 3339 timestamp, was " + time);
    }
  }

  private static String required(JsonNode node, String field, String code) {
    JsonNode text = node.get(field);
    if (text == null || !text.isTextual() || text.asText().isBlank()) {
      throw new Rejection(code, field + " is required and must be a non-empty string");
    }
    return text.asText();
  }
}
