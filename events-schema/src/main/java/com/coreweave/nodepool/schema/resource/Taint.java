package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** A Kubernetes node taint; {@code effect} is NoSchedule, PreferNoSchedule or NoExecute. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"key", "value", "effect"})
public record Taint(String key, String value, String effect) {

  public static final java.util.Set<String> EFFECTS = java.util.Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");
}
