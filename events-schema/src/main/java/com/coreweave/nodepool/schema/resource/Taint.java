package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Set;

/** A Kubernetes node taint; {@code effect} is NoSchedule, PreferNoSchedule or NoExecute. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"key", "value", "effect"})
public record Taint(String key, String value, String effect) {

    public static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");
}
