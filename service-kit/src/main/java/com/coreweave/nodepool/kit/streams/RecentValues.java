package com.coreweave.nodepool.kit.streams;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A store's most recently used values, kept parsed in front of it for the processor that is its only writer, and
 * its writes held until the commit. A value read again soon (a pool's view, read by every fact about the pool) is not
 * parsed again from the store's bytes, and a value written several times between two commits is serialized and
 * written to the store once, when Streams flushes the store for the commit (or when it leaves this cache first). So
 * the store, its changelog and the commit see what they would without this, less the intermediate values, which
 * Streams' record cache would have dropped anyway.
 *
 * <p>The processor makes a new one whenever Streams initialises it (a task opened, or revived after a failed
 * transaction), so a value never outlives the store state it was read from and held writes go with the transaction
 * that failed. Values must be immutable. The store must be built with {@link #layered}; interactive queries read
 * what the last flush wrote.
 */
public final class RecentValues<V> {

  private final KeyValueStore<String, V> store;
  private final Map<String, V> recent;
  /** Keys whose newest value is held here and not yet written to the store. */
  private final Set<String> held = new HashSet<>();

  /** Keeps up to {@code capacity} values of {@code store}, the least recently used leaving first. */
  public RecentValues(KeyValueStore<String, V> store, int capacity) {
    this.store = store;
    this.recent = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        if (size() <= capacity) {
          return false;
        }
        if (held.remove(eldest.getKey())) {
          store.put(eldest.getKey(), eldest.getValue());
        }
        return true;
      }
    };
    hookUnder(store).beforeFlush(this::writeHeld);
  }

  /** {@code builder}'s store with the layer through which a RecentValues learns of each commit. */
  public static <V> StoreBuilder<KeyValueStore<String, V>> layered(StoreBuilder<KeyValueStore<String, V>> builder) {
    return CommitHookStore.around(builder);
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

  /** Sets {@code key}'s value; the store receives it with the commit. */
  public void put(String key, V value) {
    recent.put(key, value);
    held.add(key);
  }

  public void delete(String key) {
    store.delete(key);
    recent.remove(key);
    held.remove(key);
  }

  /** The store itself, with every held value written to it: to iterate it, or to listen to its cache. */
  public KeyValueStore<String, V> store() {
    writeHeld();
    return store;
  }

  private void writeHeld() {
    for (String key : held) {
      store.put(key, recent.get(key));
    }
    held.clear();
  }

  @SuppressWarnings("unchecked")
  private static <V> CommitHookStore<V> hookUnder(StateStore store) {
    StateStore layer = store;
    while (!(layer instanceof CommitHookStore<?>)) {
      if (!(layer instanceof WrappedStateStore<?, ?, ?> wrapped)) {
        throw new IllegalArgumentException("store " + store.name() + " is not built with RecentValues.layered");
      }
      layer = wrapped.wrapped();
    }
    return (CommitHookStore<V>) layer;
  }
}
