package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Status;
import java.time.Instant;

/**
 * The pool processor's answer to one request (by CloudEvent id), so that the REST call that published it can reply
 * synchronously. Exactly one of {@code nodePool} (the stored resource) and {@code error} is set.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RequestDecided(
        String requestId, Outcome outcome, int code, NodePool nodePool, Status error, Instant decidedAt) {

    /** CREATED and UPDATED changed the pool, UNCHANGED did not (an identical write or a repeated request). */
    public enum Outcome {
        CREATED,
        UPDATED,
        UNCHANGED,
        DELETING,
        REJECTED
    }
}
