package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.PoolKey;

/**
 * Reads a {@code node-deletion-requested} record: keyed {@code <org>/<pool>}, a {@code NodeDeletionRequested} for
 * the same org and pool with an id and the node. Anything else is rejected with a code and a reason for the
 * dead-letter headers.
 */
public final class DeletionRequestReader implements RecordReader<NodeDeletionRequested> {

  public static final String INVALID_REQUEST = "InvalidRequest";
  public static final String KEY_MISMATCH = "KeyMismatch";

  @Override
  public NodeDeletionRequested read(String key, byte[] value) {
    PoolKey poolKey = RecordReader.poolKey(key);
    NodeDeletionRequested request = RecordReader.json(NodeDeletionRequested.class).read(key, value);
    if (blank(request.id()) || blank(request.org()) || blank(request.pool()) || blank(request.node())) {
      throw new Rejection(INVALID_REQUEST, "id, org, pool and node are required");
    }
    if (!poolKey.org().equals(request.org()) || !poolKey.pool().equals(request.pool())) {
      throw new Rejection(KEY_MISMATCH, "the request is about " + request.org() + "/" + request.pool()
          + " but its key is \"" + key + "\"");
    }
    return request;
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }
}
