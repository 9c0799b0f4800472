package com.coreweave.nodepool.kit.streams.internals;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * The outermost layer of a key-value store, which runs a hook each time Streams flushes the store's cache for a commit:
 * before the commit's records are flushed to the broker and the transaction commits, so what the hook writes into the
 * store belongs to that transaction. {@code RecentValues} writes its held values there. Everything else goes straight
 * through to the store (interactive queries included).
 */
// Extends the internal WrappedStateStore: Streams flushes a store's layers through it, and no public layer has a hook.
public final class CommitHookStore<V> extends WrappedStateStore<KeyValueStore<String, V>, String, V>
        implements KeyValueStore<String, V> {

    private Runnable beforeFlush = () -> {};

    private CommitHookStore(KeyValueStore<String, V> store) {
        super(store);
    }

    /** Builds {@code builder}'s store with this layer around it. */
    public static <V> StoreBuilder<KeyValueStore<String, V>> around(StoreBuilder<KeyValueStore<String, V>> builder) {
        return new Builder<>(builder);
    }

    /**
     * The hook, replacing any set before: Streams initialises a task's processors again over the same stores when it
     * revives the task, and only the newest processor's held writes are the task's.
     */
    public void beforeFlush(Runnable hook) {
        beforeFlush = hook;
    }

    @Override
    public void flushCache() {
        beforeFlush.run();
        super.flushCache();
    }

    @Override
    public void put(String key, V value) {
        wrapped().put(key, value);
    }

    @Override
    public V putIfAbsent(String key, V value) {
        return wrapped().putIfAbsent(key, value);
    }

    @Override
    public void putAll(List<KeyValue<String, V>> entries) {
        wrapped().putAll(entries);
    }

    @Override
    public V delete(String key) {
        return wrapped().delete(key);
    }

    @Override
    public V get(String key) {
        return wrapped().get(key);
    }

    @Override
    public KeyValueIterator<String, V> range(String from, String to) {
        return wrapped().range(from, to);
    }

    @Override
    public KeyValueIterator<String, V> reverseRange(String from, String to) {
        return wrapped().reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<String, V> all() {
        return wrapped().all();
    }

    @Override
    public KeyValueIterator<String, V> reverseAll() {
        return wrapped().reverseAll();
    }

    @Override
    public <S extends Serializer<P>, P> KeyValueIterator<String, V> prefixScan(P prefix, S prefixKeySerializer) {
        return wrapped().prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries();
    }

    private record Builder<V>(StoreBuilder<KeyValueStore<String, V>> inner)
            implements StoreBuilder<KeyValueStore<String, V>> {

        @Override
        public StoreBuilder<KeyValueStore<String, V>> withCachingEnabled() {
            return new Builder<>(inner.withCachingEnabled());
        }

        @Override
        public StoreBuilder<KeyValueStore<String, V>> withCachingDisabled() {
            return new Builder<>(inner.withCachingDisabled());
        }

        @Override
        public StoreBuilder<KeyValueStore<String, V>> withLoggingEnabled(Map<String, String> config) {
            return new Builder<>(inner.withLoggingEnabled(config));
        }

        @Override
        public StoreBuilder<KeyValueStore<String, V>> withLoggingDisabled() {
            return new Builder<>(inner.withLoggingDisabled());
        }

        @Override
        public KeyValueStore<String, V> build() {
            return new CommitHookStore<>(inner.build());
        }

        @Override
        public Map<String, String> logConfig() {
            return inner.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return inner.loggingEnabled();
        }

        @Override
        public String name() {
            return inner.name();
        }
    }
}
