package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.resource.Node;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * A part of a pool's view that grows with the pool, stored under a key of its own beside the view
 * ({@code <org>/<pool>/<id>}): one of its nodes, or one of its spot preemptions. The view itself keeps only what stays
 * small, so no stored value grows with the size of a pool ({@link PoolView#parts}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "part")
@JsonSubTypes({
    @JsonSubTypes.Type(value = ViewPart.NodePart.class, name = "Node"),
    @JsonSubTypes.Type(value = ViewPart.PreemptionPart.class, name = "Preemption")
})
public sealed interface ViewPart {

    /** Parts that are nodes have ids starting with this. */
    String NODES = "n/";
    /** Parts that are preemptions have ids starting with this. */
    String PREEMPTIONS = "p/";

    record NodePart(Node node) implements ViewPart {}

    record PreemptionPart(PoolView.Preemption preemption) implements ViewPart {}
}
