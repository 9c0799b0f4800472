package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolKey;

/**
 * Reads {@code nodepool-accepted}: a tombstone (the pool is gone) or an accepted pool that names its incarnation,
 * zone and instance type and agrees with its key. Anything else is refused to the dead-letter topic, because a
 * pool the quota cannot be keyed by cannot be decided.
 */
public final class AcceptedPoolReader implements RecordReader<NodePoolAccepted> {

  private static final RecordReader<NodePoolAccepted> JSON = RecordReader.jsonOrTombstone(NodePoolAccepted.class);

  @Override
  public NodePoolAccepted read(String key, byte[] value) {
    PoolKey poolKey = RecordReader.poolKey(key);
    NodePoolAccepted accepted = JSON.read(key, value);
    if (accepted == null) {
      return null;
    }
    var pool = accepted.nodePool();
    if (pool == null || pool.metadata() == null || pool.spec() == null || accepted.validation() == null) {
      throw new Rejection("InvalidRecord", "an accepted pool needs nodePool.metadata, nodePool.spec and validation");
    }
    if (blank(pool.metadata().uid()) || pool.metadata().generation() == null) {
      throw new Rejection("InvalidRecord", "an accepted pool needs metadata.uid and metadata.generation");
    }
    if (!segment(pool.spec().region()) || !segment(pool.spec().instanceType())) {
      throw new Rejection("InvalidRecord", "an accepted pool needs spec.region and spec.instanceType without '/'");
    }
    if (!poolKey.org().equals(accepted.org()) || !poolKey.pool().equals(pool.name())) {
      throw new Rejection("KeyMismatch", "key '" + key + "' does not match the pool " + accepted.org() + "/"
          + pool.name());
    }
    return accepted;
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  private static boolean segment(String value) {
    return !blank(value) && !value.contains("/");
  }
}
