package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads {@code quota-limit-set}: a tombstone (the quota is removed) or a limit of at least 0 nodes that agrees
 * with its {@code <org>/<zone>/<instanceType>} key. Anything else is refused to the dead-letter topic; in
 * particular a missing {@code maxNodes} is not read as a quota of 0.
 */
public final class QuotaLimitReader implements RecordReader<QuotaLimit> {

  @Override
  public QuotaLimit read(String key, byte[] value) {
    if (key == null) {
      throw new Rejection("KeyMissing", "record has no key");
    }
    QuotaKey quotaKey;
    try {
      quotaKey = QuotaKey.parse(key);
    } catch (IllegalArgumentException e) {
      throw new Rejection("InvalidKey", e.getMessage());
    }
    if (value == null) {
      return null;
    }
    QuotaLimit limit;
    try {
      JsonNode tree = Json.mapper().readTree(value);
      JsonNode maxNodes = tree == null ? null : tree.get("maxNodes");
      if (maxNodes == null || !maxNodes.isIntegralNumber() || !maxNodes.canConvertToInt()) {
        throw new Rejection("InvalidRecord", "a quota limit needs maxNodes, a whole number");
      }
      limit = Json.mapper().treeToValue(tree, QuotaLimit.class);
    } catch (java.io.IOException e) {
      throw new Rejection("Unreadable", "value is not a QuotaLimit: " + e.getMessage());
    }
    if (!quotaKey.equals(limit.key())) {
      throw new Rejection("KeyMismatch", "key '" + key + "' does not match the quota " + limit.key());
    }
    if (limit.maxNodes() < 0) {
      throw new Rejection("InvalidRecord", "maxNodes must be at least 0, not " + limit.maxNodes());
    }
    return limit;
  }
}
