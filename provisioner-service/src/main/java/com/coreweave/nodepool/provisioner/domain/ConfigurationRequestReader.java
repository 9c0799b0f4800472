package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.events.PoolKey;

/**
 * Reads a {@code nodepool-configuration-requested} record, which the api-service and platform tooling publish:
 * keyed {@code <org>/<pool>}, a {@code NodeConfigurationRequested} for the same org and pool with an id and an
 * action, and the revision to return to for a rollback. Anything else is rejected with a code and a reason for the
 * dead-letter headers.
 */
public final class ConfigurationRequestReader implements RecordReader<NodeConfigurationRequested> {

  public static final String INVALID_REQUEST = "InvalidRequest";
  public static final String KEY_MISMATCH = "KeyMismatch";

  @Override
  public NodeConfigurationRequested read(String key, byte[] value) {
    PoolKey poolKey = RecordReader.poolKey(key);
    NodeConfigurationRequested request = RecordReader.json(NodeConfigurationRequested.class).read(key, value);
    if (blank(request.id()) || blank(request.org()) || blank(request.pool())) {
      throw new Rejection(INVALID_REQUEST, "id, org and pool are required");
    }
    if (request.action() == null) {
      throw new Rejection(INVALID_REQUEST, "action is required: one of Upgrade, Rollback, Reconfigure");
    }
    if (request.action() == Action.Rollback && blank(request.nodeProfile())) {
      throw new Rejection(INVALID_REQUEST, "a Rollback names the nodeProfile of the revision to return to");
    }
    if (request.nodes().stream().anyMatch(ConfigurationRequestReader::blank)) {
      throw new Rejection(INVALID_REQUEST, "nodes must be node names");
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
