package com.coreweave.nodepool.kit.streams;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;

/** Turns a raw record into a value, or says why it cannot by throwing a {@link Rejection}. */
@FunctionalInterface
public interface RecordReader<T> {

  T read(String key, byte[] value);

  /** Reads JSON into {@code type}; a missing key, a missing value or unreadable JSON is rejected. */
  static <T> RecordReader<T> json(Class<T> type) {
    return json(type, false);
  }

  /** Reads JSON into {@code type}; a tombstone (null value) of a compacted topic is read as null. */
  static <T> RecordReader<T> jsonOrTombstone(Class<T> type) {
    return json(type, true);
  }

  /** A record key that must be {@code <org>/<pool>}; anything else is rejected as {@code InvalidKey}. */
  static PoolKey poolKey(String key) {
    try {
      return PoolKey.parse(key);
    } catch (IllegalArgumentException e) {
      throw new Rejection("InvalidKey", e.getMessage());
    }
  }

  private static <T> RecordReader<T> json(Class<T> type, boolean tombstones) {
    return (key, value) -> {
      if (key == null) {
        throw new Rejection("KeyMissing", "record has no key");
      }
      if (value == null) {
        if (tombstones) {
          return null;
        }
        throw new Rejection("ValueMissing", "record has no value");
      }
      try {
        return Json.mapper().readValue(value, type);
      } catch (Exception e) {
        throw new Rejection("Unreadable", "value is not a " + type.getSimpleName() + ": " + e.getMessage());
      }
    };
  }
}
