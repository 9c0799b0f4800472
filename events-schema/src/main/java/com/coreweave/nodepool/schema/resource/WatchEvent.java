package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** One line of a Kubernetes watch stream: {@code ADDED}, {@code MODIFIED} or {@code DELETED} and the object. */
@JsonPropertyOrder({"type", "object"})
public record WatchEvent<T>(String type, T object) {

  public static final String ADDED = "ADDED";
  public static final String MODIFIED = "MODIFIED";
  public static final String DELETED = "DELETED";
}
