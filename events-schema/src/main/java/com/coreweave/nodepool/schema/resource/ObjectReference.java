package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** What an event is about: a NodePool or one of its Nodes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"apiVersion", "kind", "name", "uid"})
public record ObjectReference(String apiVersion, String kind, String name, String uid) {

    public static ObjectReference nodePool(String name, String uid) {
        return new ObjectReference(NodePool.API_VERSION, NodePool.KIND, name, uid);
    }

    public static ObjectReference node(String name) {
        return new ObjectReference("v1", "Node", name, null);
    }
}
