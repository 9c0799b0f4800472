package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * How nodes leave a pool: {@code scaleDownStrategy} IdleOnly (default) or PreferIdle; unhealthy nodes kept instead of
 * evicted; and {@code maxUnhealthy}, a count ("3") or a percentage of the pool's nodes ("40%"), above which automated
 * repair stops (unset: it never does).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"disableUnhealthyNodeEviction", "maxUnhealthy", "scaleDownStrategy"})
public record Lifecycle(String scaleDownStrategy, Boolean disableUnhealthyNodeEviction, String maxUnhealthy) {

    public static final String IDLE_ONLY = "IdleOnly";
    public static final String PREFER_IDLE = "PreferIdle";

    public Lifecycle(String scaleDownStrategy, Boolean disableUnhealthyNodeEviction) {
        this(scaleDownStrategy, disableUnhealthyNodeEviction, null);
    }
}
