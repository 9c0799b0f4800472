package com.coreweave.nodepool.kit.streams;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolRef;
import java.util.function.Function;

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

  /**
   * Reads a fact about one pool incarnation, keyed {@code <org>/<pool>}: {@code pool} names it in the value (org,
   * pool and uid), and the key names the same pool. Anything else is rejected ({@code InvalidRecord},
   * {@code KeyMismatch}) rather than folded into the state of whatever pool the key names.
   */
  static <T> RecordReader<T> poolFact(Class<T> type, Function<T, PoolRef> pool) {
    return poolFact(json(type), pool);
  }

  /** As {@link #poolFact(Class, Function)}; a tombstone of a compacted topic is read as null. */
  static <T> RecordReader<T> poolFactOrTombstone(Class<T> type, Function<T, PoolRef> pool) {
    return poolFact(jsonOrTombstone(type), pool);
  }

  private static <T> RecordReader<T> poolFact(RecordReader<T> json, Function<T, PoolRef> pool) {
    return (key, value) -> {
      T fact = json.read(key, value);
      if (fact == null) {
        return null;
      }
      PoolRef ref;
      try {
        ref = pool.apply(fact);
      } catch (RuntimeException e) {
        ref = null;
      }
      if (ref == null || blank(ref.org()) || blank(ref.pool()) || blank(ref.uid())) {
        throw new Rejection("InvalidRecord", "the value does not name its pool (org, pool and uid)");
      }
      if (!key.equals(ref.org() + "/" + ref.pool())) {
        throw new Rejection("KeyMismatch", "key '" + key + "' does not match the pool " + ref.org() + "/"
            + ref.pool() + " the value is about");
      }
      return fact;
    };
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
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
