package com.coreweave.nodepool.kit.streams.store;

import com.coreweave.nodepool.kit.streams.internals.CommitHookStore;
import com.coreweave.nodepool.kit.streams.internals.StoreLayers;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A store's most recently used values, kept parsed in front of it for the processor that is its only writer, and its
 * writes held until the commit.
 *
 * <ul>
 *   <li>A value read again soon (a pool's view, read by every fact about the pool) is not parsed again from the store's
 *       bytes.
 *   <li>A value written several times between two commits is serialized and written to the store once, when Streams
 *       flushes the store for the commit (or when it leaves this cache first). The store, its changelog and the commit
 *       see what they would without this, less the intermediate values, which Streams' record cache would have dropped
 *       anyway.
 *   <li>The processor makes a new one whenever Streams initialises it (a task opened, or revived after a failed
 *       transaction), so a value never outlives the store state it was read from, and held writes go with the
 *       transaction that failed.
 *   <li>Values must be immutable. The store must be built with {@link #layered}; interactive queries read what the last
 *       flush wrote.
 * </ul>
 */
public final class RecentValues<V> {

    private final KeyValueStore<String, V> store;
    /** In least recently used order. */
    private final LinkedHashMap<String, V> recent = new LinkedHashMap<>(16, 0.75f, true);
    /** Keys whose newest value is held here and not yet written to the store. */
    private final Set<String> held = new HashSet<>();

    private final ToIntFunction<V> weigher;
    private final long maxWeight;
    private long weight;

    /**
     * Keeps values of {@code store} up to a total {@code maxWeight} by {@code weigher} (at least 1 each), the least
     * recently used leaving first: so many small values fit where few large ones would (a view of a 1-node pool against
     * one of a 10-node pool).
     */
    public RecentValues(KeyValueStore<String, V> store, long maxWeight, ToIntFunction<V> weigher) {
        this.store = store;
        this.maxWeight = maxWeight;
        this.weigher = value -> Math.max(1, weigher.applyAsInt(value));
        CommitHookStore<?> hook = StoreLayers.find(store, CommitHookStore.class);
        if (hook == null) {
            throw new IllegalArgumentException("store " + store.name() + " is not built with RecentValues.layered");
        }
        hook.beforeFlush(this::writeHeld);
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
                keep(key, value);
            }
        }
        return value;
    }

    /** Sets {@code key}'s value; the store receives it with the commit. */
    public void put(String key, V value) {
        held.add(key);
        keep(key, value);
    }

    public void delete(String key) {
        store.delete(key);
        forget(key);
        held.remove(key);
    }

    /** The store itself, with every held value written to it: to iterate it, or to listen to its cache. */
    public KeyValueStore<String, V> store() {
        writeHeld();
        return store;
    }

    private void keep(String key, V value) {
        forget(key);
        recent.put(key, value);
        weight += weigher.applyAsInt(value);
        Iterator<Map.Entry<String, V>> eldest = recent.entrySet().iterator();
        while (weight > maxWeight && recent.size() > 1) {
            Map.Entry<String, V> leaving = eldest.next();
            if (held.remove(leaving.getKey())) {
                store.put(leaving.getKey(), leaving.getValue());
            }
            weight -= weigher.applyAsInt(leaving.getValue());
            eldest.remove();
        }
    }

    private void forget(String key) {
        V known = recent.remove(key);
        if (known != null) {
            weight -= weigher.applyAsInt(known);
        }
    }

    private void writeHeld() {
        for (String key : held) {
            store.put(key, recent.get(key));
        }
        held.clear();
    }
}
