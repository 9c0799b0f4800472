package com.coreweave.nodepool.kit.tenancy;

import java.util.NoSuchElementException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A store as one caller may read it: a key outside the caller's {@link KeyScope} does not exist, scans are cut to the
 * caller's keys before they start, and every entry a scan returns is tested again. Every store handle the interactive
 * queries hand out is one of these, so a read path cannot reach another org's keys by forgetting a check.
 */
public final class ScopedStore<V> implements ReadOnlyKeyValueStore<String, V> {

    private final ReadOnlyKeyValueStore<String, V> store;
    private final KeyScope scope;

    private ScopedStore(ReadOnlyKeyValueStore<String, V> store, KeyScope scope) {
        this.store = store;
        this.scope = scope;
    }

    public static <V> ReadOnlyKeyValueStore<String, V> of(ReadOnlyKeyValueStore<String, V> store, KeyScope scope) {
        return scope.everything() ? store : new ScopedStore<>(store, scope);
    }

    @Override
    public V get(String key) {
        return scope.sees(key) ? store.get(key) : null;
    }

    @Override
    public KeyValueIterator<String, V> range(String from, String to) {
        String[] range = scope.clamp(from, to);
        return range == null ? Filtered.empty() : new Filtered<>(store.range(range[0], range[1]), scope);
    }

    @Override
    public KeyValueIterator<String, V> reverseRange(String from, String to) {
        String[] range = scope.clamp(from, to);
        return range == null ? Filtered.empty() : new Filtered<>(store.reverseRange(range[0], range[1]), scope);
    }

    @Override
    public KeyValueIterator<String, V> all() {
        return range(null, null);
    }

    @Override
    public KeyValueIterator<String, V> reverseAll() {
        return reverseRange(null, null);
    }

    @Override
    public <S extends Serializer<P>, P> KeyValueIterator<String, V> prefixScan(P prefix, S serializer) {
        if (!(prefix instanceof String text)) {
            throw new IllegalArgumentException("the stores' keys are strings, so is a prefix");
        }
        String own = scope.prefix();
        if (text.startsWith(own)) {
            return new Filtered<>(store.prefixScan(prefix, serializer), scope);
        }
        @SuppressWarnings("unchecked")
        P narrowed = (P) own;
        return own.startsWith(text) ? new Filtered<>(store.prefixScan(narrowed, serializer), scope) : Filtered.empty();
    }

    /** How many entries the whole store holds is not the caller's to know. */
    @Override
    public long approximateNumEntries() {
        return 0;
    }

    /** A scan's entries in scope only. */
    private static final class Filtered<V> implements KeyValueIterator<String, V> {

        private final KeyValueIterator<String, V> scan;
        private final KeyScope scope;
        private KeyValue<String, V> next;

        Filtered(KeyValueIterator<String, V> scan, KeyScope scope) {
            this.scan = scan;
            this.scope = scope;
        }

        static <V> KeyValueIterator<String, V> empty() {
            return new Filtered<>(null, KeyScope.ALL);
        }

        @Override
        public boolean hasNext() {
            while (next == null && scan != null && scan.hasNext()) {
                KeyValue<String, V> entry = scan.next();
                if (scope.sees(entry.key)) {
                    next = entry;
                }
            }
            return next != null;
        }

        @Override
        public KeyValue<String, V> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            KeyValue<String, V> entry = next;
            next = null;
            return entry;
        }

        @Override
        public String peekNextKey() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return next.key;
        }

        @Override
        public void close() {
            if (scan != null) {
                scan.close();
            }
        }
    }
}
