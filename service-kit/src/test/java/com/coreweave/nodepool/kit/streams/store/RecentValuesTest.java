package com.coreweave.nodepool.kit.streams.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RecentValuesTest {

    /** Counts how often the store's bytes are parsed. */
    private final AtomicInteger parsed = new AtomicInteger();
    /** Every value serialized into the store. */
    private final List<String> written = new ArrayList<>();

    private KeyValueStore<String, String> store;
    private RecentValues<String> views;

    @BeforeEach
    void openAStore() {
        Serde<String> counting = Serdes.serdeFrom(
                (topic, value) -> {
                    written.add(value);
                    return value.getBytes(StandardCharsets.UTF_8);
                },
                (topic, bytes) -> {
                    parsed.incrementAndGet();
                    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
                });
        store = RecentValues.layered(
                        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("views"), Serdes.String(), counting)
                                .withLoggingDisabled())
                .build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        views = new RecentValues<>(store, 2, value -> 1);
    }

    @Test
    void aViewWrittenIsReadBackWithoutParsingTheStore() {
        views.put("org/pool-a", "Pending");

        assertThat(views.get("org/pool-a")).isEqualTo("Pending");
        assertThat(parsed).hasValue(0);
    }

    @Test
    void writesReachTheStoreWhenStreamsFlushesItForTheCommitAndOnlyTheLastOfEachKey() {
        views.put("org/pool-a", "Pending");
        views.put("org/pool-a", "AtTarget");
        views.put("org/pool-b", "Pending");
        assertThat(store.get("org/pool-a")).isNull();

        commit();

        assertThat(store.get("org/pool-a")).isEqualTo("AtTarget");
        assertThat(store.get("org/pool-b")).isEqualTo("Pending");
        assertThat(written).containsExactlyInAnyOrder("AtTarget", "Pending");
    }

    @Test
    void aDeleteReachesTheStoreAtOnceAndDropsAHeldWrite() {
        views.put("org/pool-a", "Pending");
        commit();
        views.put("org/pool-a", "AtTarget");
        views.delete("org/pool-a");

        assertThat(store.get("org/pool-a")).isNull();
        commit();
        assertThat(store.get("org/pool-a")).isNull();
        assertThat(views.get("org/pool-a")).isNull();
    }

    @Test
    void aHeldValueLeavingTheCacheIsWrittenThen() {
        views.put("org/pool-a", "Pending");
        views.put("org/pool-b", "Pending");
        views.put("org/pool-c", "Pending");

        assertThat(store.get("org/pool-a")).isEqualTo("Pending");
        assertThat(store.get("org/pool-c")).isNull();
    }

    @Test
    void iteratingTheStoreSeesTheHeldValues() {
        views.put("org/pool-a", "Pending");

        try (var all = views.store().all()) {
            assertThat(all.next().value).isEqualTo("Pending");
        }
    }

    @Test
    void weighedValuesLeaveByWeightSoManySmallOnesFitWhereFewLargeOnesWould() {
        // Weight: the value's length; at most 10.
        RecentValues<String> weighed = new RecentValues<>(store, 10, String::length);
        weighed.put("org/small-a", "ab");
        weighed.put("org/small-b", "ab");
        weighed.put("org/small-c", "ab");
        weighed.put("org/small-d", "ab");
        weighed.put("org/small-e", "ab");
        assertThat(written).as("five of weight 2 fit in 10").isEmpty();

        weighed.put("org/large", "abcdefgh");

        assertThat(written)
                .as("the four least recently used leave, written as they go")
                .containsExactly("ab", "ab", "ab", "ab");
        assertThat(store.get("org/small-e")).as("the fifth is still held").isNull();
        assertThat(weighed.get("org/small-e")).isEqualTo("ab");
        assertThat(weighed.get("org/small-a")).as("read back from the store").isEqualTo("ab");
        assertThat(parsed).as("only small-a was parsed").hasValue(1);
    }

    @Test
    void aStoreBuiltWithoutTheLayerIsRefused() {
        KeyValueStore<String, String> plain = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore("plain"), Serdes.String(), Serdes.String())
                .withLoggingDisabled()
                .build();

        assertThatThrownBy(() -> new RecentValues<>(plain, 2, value -> 1)).hasMessageContaining("RecentValues.layered");
    }

    /** What Streams does to every store of a task before the commit's records go to the broker. */
    private void commit() {
        StreamsInternals.flushCache(store);
    }

    @Test
    void aViewOnlyInTheStoreIsParsedOnceThenKept() {
        store.put("org/pool-a", "Pending");

        assertThat(views.get("org/pool-a")).isEqualTo("Pending");
        assertThat(views.get("org/pool-a")).isEqualTo("Pending");
        assertThat(parsed).hasValue(1);
    }

    @Test
    void beyondItsCapacityTheLeastRecentlyUsedViewIsReadFromTheStoreAgain() {
        views.put("org/pool-a", "Pending");
        views.put("org/pool-b", "Pending");
        commit();
        views.get("org/pool-a");
        views.put("org/pool-c", "Pending");

        assertThat(views.get("org/pool-a")).isEqualTo("Pending");
        assertThat(parsed).hasValue(0);
        assertThat(views.get("org/pool-b")).isEqualTo("Pending");
        assertThat(parsed).hasValue(1);
    }
}
