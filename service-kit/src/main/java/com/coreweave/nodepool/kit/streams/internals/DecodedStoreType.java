package com.coreweave.nodepool.kit.streams.internals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.internals.MeteredKeyValueStore;
import org.apache.kafka.streams.state.internals.StateStoreProvider;

/**
 * An interactive-query view of a key-value store of String keys that reads each value's stored bytes with a decoder of
 * the caller's, instead of the store's serde: a scan that needs one part of large values (a LIST needs each pool's
 * published object, not its whole view) reads only that part. It reads under the store's metering layer, through its
 * record cache, as the serde's reads do. One partition at a time ({@code StoreQueryParameters.withPartition}).
 */
public final class DecodedStoreType<T> implements QueryableStoreType<ReadOnlyKeyValueStore<String, T>> {

    private final Function<byte[], T> decode;

    public DecodedStoreType(Function<byte[], T> decode) {
        this.decode = decode;
    }

    @Override
    public boolean accepts(StateStore store) {
        return bytesUnder(store) != null;
    }

    // QueryableStoreType's own signature names the internal StateStoreProvider: any store type must use it.
    @Override
    public ReadOnlyKeyValueStore<String, T> create(StateStoreProvider provider, String storeName) {
        return new Decoded(provider, storeName);
    }

    /** The bytes store under a store's metering layer (its record cache, changelog and RocksDB), or null. */
    @SuppressWarnings("unchecked")
    private static KeyValueStore<Bytes, byte[]> bytesUnder(StateStore store) {
        // The serde is applied by the internal metering layer; the bytes under it are reachable no other way.
        MeteredKeyValueStore<?, ?> metered = StoreLayers.find(store, MeteredKeyValueStore.class);
        return metered == null ? null : (KeyValueStore<Bytes, byte[]>) metered.wrapped();
    }

    private static Bytes utf8(String key) {
        return Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
    }

    private final class Decoded implements ReadOnlyKeyValueStore<String, T> {
        private final StateStoreProvider provider;
        private final String storeName;

        Decoded(StateStoreProvider provider, String storeName) {
            this.provider = provider;
            this.storeName = storeName;
        }

        private KeyValueStore<Bytes, byte[]> partition() {
            List<ReadOnlyKeyValueStore<String, T>> stores = provider.stores(storeName, DecodedStoreType.this);
            if (stores.size() != 1) {
                throw new IllegalStateException(
                        "a decoded read is of one partition of " + storeName + ", not " + stores.size());
            }
            return bytesUnder((StateStore) stores.get(0));
        }

        @Override
        public T get(String key) {
            byte[] value = partition().get(utf8(key));
            return value == null ? null : decode.apply(value);
        }

        @Override
        public KeyValueIterator<String, T> range(String from, String to) {
            return decoded(partition().range(utf8(from), utf8(to)));
        }

        @Override
        public KeyValueIterator<String, T> all() {
            return decoded(partition().all());
        }

        @Override
        public long approximateNumEntries() {
            return partition().approximateNumEntries();
        }

        private KeyValueIterator<String, T> decoded(KeyValueIterator<Bytes, byte[]> raw) {
            return new KeyValueIterator<>() {
                @Override
                public boolean hasNext() {
                    return raw.hasNext();
                }

                @Override
                public KeyValue<String, T> next() {
                    KeyValue<Bytes, byte[]> entry = raw.next();
                    return KeyValue.pair(
                            new String(entry.key.get(), StandardCharsets.UTF_8),
                            entry.value == null ? null : decode.apply(entry.value));
                }

                @Override
                public void close() {
                    raw.close();
                }

                @Override
                public String peekNextKey() {
                    return new String(raw.peekNextKey().get(), StandardCharsets.UTF_8);
                }
            };
        }
    }
}
