package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.Map;

/**
 * A Kubernetes Event ({@code v1}): what {@code nodepool-events} carries and {@code GET .../events} lists. A repeated
 * event (same object, reason and message) is one Event whose {@code count} grows.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"apiVersion", "kind", "metadata", "involvedObject", "reason", "message", "type", "count",
    "firstTimestamp", "lastTimestamp", "source", "reportingComponent"})
public record KubeEvent(
    String apiVersion,
    String kind,
    Map<String, String> metadata,
    ObjectReference involvedObject,
    String reason,
    String message,
    String type,
    int count,
    Instant firstTimestamp,
    Instant lastTimestamp,
    Map<String, String> source,
    String reportingComponent) {

  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";

  public String name() {
    return metadata == null ? null : metadata.get("name");
  }

  public KubeEvent repeated(Instant at) {
    return new KubeEvent(apiVersion, kind, metadata, involvedObject, reason, message, type, count + 1,
        firstTimestamp, at, source, reportingComponent);
  }
}
