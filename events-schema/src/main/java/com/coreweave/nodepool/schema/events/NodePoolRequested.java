package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.type.TypeReference;

/**
 * The data of a {@code NodePoolRequested} CloudEvent: what a platform team (or the REST API on its behalf) asks for.
 * {@code metadata.resourceVersion} of the manifest, when set, is a precondition: the write applies only if the stored
 * pool still has that version.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodePoolRequested(Operation operation, NodePool nodePool) {

    public static final String TYPE = "NodePoolRequested";

    /** The whole CloudEvent as Jackson reads it. */
    public static final TypeReference<CloudEvent<NodePoolRequested>> ENVELOPE = new TypeReference<>() {};

    /**
     * APPLY and DELETE are the public contract of the topic. CREATE (fails if the pool exists) and REPLACE (fails if it
     * does not) carry the REST API's POST and PUT semantics over the same path.
     */
    public enum Operation {
        APPLY,
        DELETE,
        CREATE,
        REPLACE
    }
}
