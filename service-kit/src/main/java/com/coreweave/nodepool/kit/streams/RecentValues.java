package com.coreweave.nodepool.kit.streams;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A store's most recently used values, kept parsed in front of it for the processor that is its only writer: a value
 * read again soon (a pool's view, read by every fact about the pool) is not parsed again from the store's bytes. Every
 * write goes through to the store, so the store, its record cache and its changelog see exactly what they would
 * without this. The processor makes a new one whenever Streams initialises it (a task opened, or revived after a
 * failed transaction), so a value never outlives the store state it was read from. Values must be immutable.
 */
public final class RecentValues<V> {

  private final KeyValueStore<String, V> store;
  private final Map<String, V> recent;

  /** Keeps up to {@code capacity} values of {@code store}, the least recently used leaving first. */
  public RecentValues(KeyValueStore<String, V> store, int capacity) {
    this.store = store;
    this.recent = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > capacity;
      }
    };
  }

  /** The value of {@code key}, or null. */
  public V get(String key) {
    V value = recent.get(key);
    if (value == null) {
      value = store.get(key);
      if (value != null) {
        recent.put(key, value);
      }
    }
    return value;
  }

  public void put(String key, V value) {
    store.put(key, value);
    recent.put(key, value);
  }

  public void delete(String key) {
    store.delete(key);
    recent.remove(key);
  }

  /** The store itself, for what only it can do: iterate it, listen to its cache (FlushedOutputs). */
  public KeyValueStore<String, V> store() {
    return store;
  }
}
