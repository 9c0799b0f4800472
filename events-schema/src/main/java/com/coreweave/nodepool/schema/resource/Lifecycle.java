package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** How nodes leave a pool: {@code scaleDownStrategy} IdleOnly (default) or PreferIdle. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"disableUnhealthyNodeEviction", "scaleDownStrategy"})
public record Lifecycle(String scaleDownStrategy, Boolean disableUnhealthyNodeEviction) {

    public static final String IDLE_ONLY = "IdleOnly";
    public static final String PREFER_IDLE = "PreferIdle";
}
