package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * The accepted state of a pool (compacted {@code nodepool-accepted}, keyed {@code <org>/<pool>}), written only by the
 * api-service's pool processor: metadata with uid, generation and resourceVersion, the latest spec with defaults, and
 * its validation verdict. A set {@code deletionTimestamp} means the pool is being deleted; a tombstone means it is
 * gone.
 *
 * <p>A refusal never removes anything: while the latest generation is not valid, {@code lastValid} holds the last
 * generation that was, and every service acts on {@link #inForce()}, so an invalid update keeps the pool's nodes, quota
 * admission and capacity grants. {@code lastValid} is null when the latest generation is valid, or when no generation
 * ever was.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodePoolAccepted(
        String org, NodePool nodePool, Validation validation, Instant acceptedAt, LastValid lastValid) {

    /** A generation that passed validation, kept in force while later ones do not. */
    public record LastValid(long generation, NodePoolSpec spec, Validation validation) {}

    public NodePoolAccepted(String org, NodePool nodePool, Validation validation, Instant acceptedAt) {
        this(org, nodePool, validation, acceptedAt, null);
    }

    /**
     * The pool as the services act on it: this one, or, while the latest generation is not valid, the same pool
     * (metadata, generation, deletion) with the last valid generation's spec and verdict. It keeps {@code lastValid},
     * so a reader can still tell that a later generation was not applied.
     */
    @JsonIgnore
    public NodePoolAccepted inForce() {
        if (lastValid == null) {
            return this;
        }
        return new NodePoolAccepted(
                org, nodePool.withSpec(lastValid.spec()), lastValid.validation(), acceptedAt, lastValid);
    }

    /** What the next generation keeps in force if it is not valid: this generation when it is, else what this kept. */
    @JsonIgnore
    public LastValid keptInForce() {
        return validation.valid() ? new LastValid(generation(), nodePool.spec(), validation) : lastValid;
    }

    @JsonIgnore
    public String uid() {
        return nodePool.metadata().uid();
    }

    @JsonIgnore
    public long generation() {
        return nodePool.metadata().generation();
    }

    @JsonIgnore
    public boolean deleting() {
        return nodePool.metadata().deletionTimestamp() != null;
    }

    @JsonIgnore
    public String zone() {
        return nodePool.spec().region();
    }

    @JsonIgnore
    public PoolKey key() {
        return new PoolKey(org, nodePool.name());
    }
}
