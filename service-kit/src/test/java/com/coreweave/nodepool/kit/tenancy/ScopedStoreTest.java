package com.coreweave.nodepool.kit.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.rest.ApiException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

class ScopedStoreTest {

    /** A store of three orgs' pools, keyed as the services key them. */
    private final Sorted store = new Sorted(Map.of(
            "acme/a",
            "acme a",
            "acme/b",
            "acme b",
            "demo/a",
            "demo a",
            "demo/b",
            "demo b",
            "demo/b/node-1",
            "demo b node 1",
            "other/x",
            "other x"));

    private final ReadOnlyKeyValueStore<String, String> other = ScopedStore.of(store, KeyScope.ofOrg("other"));

    @Test
    void anOrgGetsOnlyItsOwnKeysAndAnotherOrgsKeyIsNotThere() {
        assertThat(other.get("other/x")).isEqualTo("other x");
        assertThat(other.get("demo/a")).isNull();
        assertThat(ScopedStore.of(store, KeyScope.ofOrg("demo")).get("demo/b/node-1"))
                .isEqualTo("demo b node 1");
    }

    @Test
    void aScanFromAPositionInAnotherOrgStartsAtTheCallersOwnKeys() {
        // What a forged continue token asks for: everything after "0", which sorts before every org.
        assertThat(keys(other.range("0", "\uffff"))).containsExactly("other/x");
        assertThat(keys(other.range("acme/a", "demo/z"))).isEmpty();
        assertThat(keys(other.all())).containsExactly("other/x");
        assertThat(keys(other.reverseAll())).containsExactly("other/x");
    }

    @Test
    void aPrefixScanOfAnotherOrgFindsNothingAndAWiderPrefixOnlyTheCallersKeys() {
        assertThat(keys(other.prefixScan("demo/", Serdes.String().serializer())))
                .isEmpty();
        assertThat(keys(other.prefixScan("o", Serdes.String().serializer()))).containsExactly("other/x");
        assertThat(keys(other.prefixScan("", Serdes.String().serializer()))).containsExactly("other/x");
        assertThat(keys(ScopedStore.of(store, KeyScope.ofOrg("demo"))
                        .prefixScan("demo/b/", Serdes.String().serializer())))
                .containsExactly("demo/b/node-1");
    }

    @Test
    void anOrgNamedLikeThePrefixOfAnotherSeesOnlyItsOwn() {
        Sorted similar = new Sorted(Map.of("dem/x", "dem x", "demo/a", "demo a"));
        assertThat(keys(ScopedStore.of(similar, KeyScope.ofOrg("dem")).all())).containsExactly("dem/x");
    }

    @Test
    void operatorsReadEveryKeyAndOrgsNoOperatorsStore() {
        assertThat(keys(ScopedStore.of(store, KeyScope.ALL).all())).hasSize(6);
        assertThat(StoreTenancy.scope(StoreAccess.BY_ORG, new Caller("platform-admin", true)))
                .isEqualTo(KeyScope.ALL);
        assertThat(StoreTenancy.scope(StoreAccess.BY_ORG, new Caller("demo", false)))
                .isEqualTo(KeyScope.ofOrg("demo"));
        assertThat(StoreTenancy.scope(StoreAccess.EVERYONE, new Caller("demo", false)))
                .isEqualTo(KeyScope.ALL);
        assertThatThrownBy(() -> StoreTenancy.scope(StoreAccess.OPERATORS, new Caller("demo", false)))
                .isInstanceOf(ApiException.class)
                .satisfies(
                        e -> assertThat(((ApiException) e).status().getCode()).isEqualTo(403));
    }

    @Test
    void anOrgScopeNeedsAName() {
        assertThatThrownBy(() -> KeyScope.ofOrg("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KeyScope.ofOrg("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(StoreAccess.parse(" By-Org ")).isEqualTo(StoreAccess.BY_ORG);
        assertThatThrownBy(() -> StoreAccess.parse("public")).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<String> keys(KeyValueIterator<String, String> it) {
        List<String> keys = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        return keys;
    }

    /** A sorted in-memory store, as RocksDB orders string keys (by their UTF-8 bytes; ASCII here). */
    private static final class Sorted implements ReadOnlyKeyValueStore<String, String> {

        private final TreeMap<String, String> entries;

        Sorted(Map<String, String> entries) {
            this.entries = new TreeMap<>(entries);
        }

        @Override
        public String get(String key) {
            return entries.get(key);
        }

        @Override
        public KeyValueIterator<String, String> range(String from, String to) {
            return iterator(entries.subMap(from, true, to, true));
        }

        @Override
        public KeyValueIterator<String, String> reverseRange(String from, String to) {
            return iterator(entries.subMap(from, true, to, true).descendingMap());
        }

        @Override
        public KeyValueIterator<String, String> all() {
            return iterator(entries);
        }

        @Override
        public KeyValueIterator<String, String> reverseAll() {
            return iterator(entries.descendingMap());
        }

        @Override
        public <S extends Serializer<P>, P> KeyValueIterator<String, String> prefixScan(P prefix, S serializer) {
            String text = (String) prefix;
            return iterator(entries.subMap(text, true, text + "\uffff", true));
        }

        @Override
        public long approximateNumEntries() {
            return entries.size();
        }

        private static KeyValueIterator<String, String> iterator(Map<String, String> view) {
            Iterator<Map.Entry<String, String>> it = new ArrayList<>(view.entrySet()).iterator();
            return new KeyValueIterator<>() {
                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public KeyValue<String, String> next() {
                    Map.Entry<String, String> e = it.next();
                    return KeyValue.pair(e.getKey(), e.getValue());
                }

                @Override
                public String peekNextKey() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public void close() {}
            };
        }
    }
}
