package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/** A list of NodePools, as {@code GET .../nodepools} answers. */
@JsonPropertyOrder({"apiVersion", "kind", "metadata", "items"})
public record NodePoolList(String apiVersion, String kind, Map<String, String> metadata, List<NodePool> items) {

    public static NodePoolList of(List<NodePool> items) {
        return new NodePoolList(NodePool.API_VERSION, "NodePoolList", Map.of(), items);
    }
}
