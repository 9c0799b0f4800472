package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.Map;

/** Kubernetes object metadata, the subset a cluster-scoped NodePool carries. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"name", "uid", "generation", "resourceVersion", "creationTimestamp", "deletionTimestamp",
    "labels", "annotations"})
public record ObjectMeta(
    String name,
    String uid,
    Long generation,
    String resourceVersion,
    Instant creationTimestamp,
    Instant deletionTimestamp,
    Map<String, String> labels,
    Map<String, String> annotations) {

  public static ObjectMeta named(String name) {
    return new ObjectMeta(name, null, null, null, null, null, null, null);
  }

  public ObjectMeta withName(String newName) {
    return new ObjectMeta(newName, uid, generation, resourceVersion, creationTimestamp, deletionTimestamp, labels,
        annotations);
  }

  public ObjectMeta withResourceVersion(String version) {
    return new ObjectMeta(name, uid, generation, version, creationTimestamp, deletionTimestamp, labels, annotations);
  }

  public ObjectMeta withDeletionTimestamp(Instant at) {
    return new ObjectMeta(name, uid, generation, resourceVersion, creationTimestamp, at, labels, annotations);
  }
}
