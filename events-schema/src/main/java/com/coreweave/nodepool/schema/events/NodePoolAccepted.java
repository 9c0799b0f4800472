package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/**
 * The accepted state of a pool (compacted {@code nodepool-accepted}, keyed {@code <org>/<pool>}), written only by
 * the api-service's pool processor: metadata with uid, generation and resourceVersion, the spec with defaults,
 * and the validation verdict. A set {@code deletionTimestamp} means the pool is being deleted; a tombstone means it
 * is gone.
 */
public record NodePoolAccepted(String org, NodePool nodePool, Validation validation, Instant acceptedAt) {

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
