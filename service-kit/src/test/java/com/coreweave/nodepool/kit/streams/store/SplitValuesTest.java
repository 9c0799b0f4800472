package com.coreweave.nodepool.kit.streams.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pool kept whole in memory and stored as its head (its status) and one entry per node (its phase), over plain
 * in-memory stores; {@link #commit()} is what Streams does to a task's stores before a commit.
 */
class SplitValuesTest {

    /** A pool as these tests keep it: its status and its nodes' phases by name. */
    record Pool(String status, SortedMap<String, String> nodes) {
        Pool {
            nodes = new TreeMap<>(nodes);
        }
    }

    static final SplitValues.Shape<Pool, String, String> SHAPE = new SplitValues.Shape<>() {
        @Override
        public String head(Pool pool) {
            return pool.status();
        }

        @Override
        public Map<String, String> members(Pool pool) {
            return pool.nodes();
        }

        @Override
        public Pool join(String head, SortedMap<String, String> members) {
            return new Pool(head, members);
        }
    };

    /** Every head and every member serialized into the stores, and how many of each were parsed from them. */
    private final List<String> headWrites = new ArrayList<>();

    private final List<String> memberWrites = new ArrayList<>();
    private final AtomicInteger headsParsed = new AtomicInteger();
    private final AtomicInteger membersParsed = new AtomicInteger();
    private KeyValueStore<String, String> heads;
    private KeyValueStore<String, String> members;
    private SplitValues<Pool, String, String> pools;

    @BeforeEach
    void openTheStores() {
        heads = open("heads", headWrites, headsParsed);
        members = open("members", memberWrites, membersParsed);
        pools = fresh(100);
    }

    @Test
    void aValueReachesTheStoresAtTheCommitAsItsHeadAndOneEntryPerMember() {
        pools.put("org/pool", pool("Pending", "m-1", "Booting", "m-2", "Registered"));
        assertThat(heads.get("org/pool")).isNull();
        assertThat(members.get("org/pool/m-1")).isNull();

        commit();

        assertThat(heads.get("org/pool")).isEqualTo("Pending");
        assertThat(entries(members))
                .containsExactly(Map.entry("org/pool/m-1", "Booting"), Map.entry("org/pool/m-2", "Registered"));
    }

    @Test
    void flushingEitherStoreForTheCommitWritesTheHeldValuesToBoth() {
        // Streams flushes a task's stores one by one before the commit: a write that reached a store flushed before
        // would wait in its cache for the next transaction.
        pools.put("org/pool-a", pool("Pending", "m-1", "Booting"));
        StreamsInternals.flushCache(members);

        assertThat(heads.get("org/pool-a")).isEqualTo("Pending");
        assertThat(members.get("org/pool-a/m-1")).isEqualTo("Booting");

        pools.put("org/pool-b", pool("Pending", "m-2", "Booting"));
        StreamsInternals.flushCache(heads);

        assertThat(heads.get("org/pool-b")).isEqualTo("Pending");
        assertThat(members.get("org/pool-b/m-2")).isEqualTo("Booting");
    }

    @Test
    void aValueWrittenSeveralTimesBetweenTwoCommitsIsWrittenOnceAndReadWithoutParsing() {
        pools.put("org/pool", pool("Pending", "m-1", "Booting"));
        pools.put("org/pool", pool("AtTarget", "m-1", "Registered"));

        assertThat(pools.get("org/pool")).isEqualTo(pool("AtTarget", "m-1", "Registered"));
        commit();

        assertThat(headWrites).containsExactly("AtTarget");
        assertThat(memberWrites).containsExactly("Registered");
        assertThat(headsParsed.get() + membersParsed.get()).isZero();
    }

    @Test
    void afterTheFirstWriteOnlyTheMembersThatChangedAreWrittenAndThoseThatLeftDeleted() {
        SortedMap<String, String> nodes = new TreeMap<>();
        for (int i = 1; i <= 5_000; i++) {
            nodes.put("m-" + i, "Registered");
        }
        pools.put("org/pool", new Pool("AtTarget", nodes));
        commit();
        memberWrites.clear();
        headWrites.clear();

        nodes.put("m-42", "Draining");
        nodes.remove("m-4999");
        pools.put("org/pool", new Pool("AtTarget", nodes));
        commit();

        assertThat(memberWrites).as("one member changed: one entry written").containsExactly("Draining");
        assertThat(members.get("org/pool/m-42")).isEqualTo("Draining");
        assertThat(members.get("org/pool/m-4999"))
                .as("the member that left is deleted")
                .isNull();
        assertThat(members.approximateNumEntries()).isEqualTo(4_999);
        assertThat(headWrites).as("the head did not change").isEmpty();
    }

    @Test
    void aChangedHeadIsWrittenWithoutItsMembers() {
        pools.put("org/pool", pool("Pending", "m-1", "Registered"));
        commit();
        memberWrites.clear();

        pools.put("org/pool", pool("AtTarget", "m-1", "Registered"));
        commit();

        assertThat(headWrites).containsExactly("Pending", "AtTarget");
        assertThat(memberWrites).isEmpty();
    }

    @Test
    void aValueIsReadBackFromItsHeadAndMembersAfterARestartAndDiffedAgainstWhatWasRead() {
        pools.put("org/pool", pool("AtTarget", "m-1", "Registered", "m-2", "Registered"));
        commit();
        memberWrites.clear();

        SplitValues<Pool, String, String> restarted = fresh(100);

        assertThat(restarted.get("org/pool")).isEqualTo(pool("AtTarget", "m-1", "Registered", "m-2", "Registered"));
        assertThat(restarted.get("org/pool")).isNotNull();
        assertThat(headsParsed).as("parsed once, then kept").hasValue(1);
        assertThat(membersParsed).hasValue(2);
        restarted.put("org/pool", pool("AtTarget", "m-1", "Registered", "m-2", "Draining"));
        commit();
        assertThat(memberWrites).containsExactly("Draining");
    }

    @Test
    void aValueWrittenWithoutBeingReadFirstIsDiffedAgainstTheStores() {
        pools.put("org/pool", pool("AtTarget", "m-1", "Registered", "m-2", "Registered"));
        commit();
        memberWrites.clear();
        headWrites.clear();

        SplitValues<Pool, String, String> restarted = fresh(100);
        restarted.put("org/pool", pool("AtTarget", "m-1", "Registered", "m-3", "Booting"));
        commit();

        assertThat(headWrites).isEmpty();
        assertThat(memberWrites).containsExactly("Booting");
        assertThat(entries(members)).containsOnlyKeys("org/pool/m-1", "org/pool/m-3");
    }

    @Test
    void aTaskRevivedAfterAFailedTransactionDropsTheWritesItsOldProcessorHeld() {
        pools.put("org/pool", pool("Pending", "m-1", "Booting"));
        commit();
        pools.put("org/pool", pool("AtTarget", "m-1", "Registered", "m-2", "Registered"));

        // Streams initialises the processor again over the same stores; the new one makes its own SplitValues.
        SplitValues<Pool, String, String> revived = fresh(100);
        commit();

        assertThat(heads.get("org/pool")).isEqualTo("Pending");
        assertThat(entries(members)).containsOnlyKeys("org/pool/m-1");
        assertThat(revived.get("org/pool")).isEqualTo(pool("Pending", "m-1", "Booting"));
    }

    @Test
    void aHeldValueLeavingTheCacheIsWrittenThenWithItsMembers() {
        SplitValues<Pool, String, String> small = fresh(2);
        small.put("org/pool-a", pool("Pending", "m-1", "Booting"));
        small.put("org/pool-b", pool("Pending", "m-2", "Booting"));
        small.put("org/pool-c", pool("Pending", "m-3", "Booting"));

        assertThat(heads.get("org/pool-a")).isEqualTo("Pending");
        assertThat(members.get("org/pool-a/m-1")).isEqualTo("Booting");
        assertThat(heads.get("org/pool-c")).isNull();
        assertThat(small.get("org/pool-a"))
                .as("read back from the stores")
                .isEqualTo(pool("Pending", "m-1", "Booting"));
    }

    @Test
    void aKeyReadsOnlyItsOwnMembersNotThoseOfAKeyItIsAPrefixOf() {
        pools.put("org/pool", pool("Pending", "m-1", "Booting"));
        pools.put("org/pool-2", pool("Pending", "m-2", "Booting"));
        pools.put("org/pool2", pool("Pending", "m-3", "Booting"));
        commit();

        SplitValues<Pool, String, String> restarted = fresh(100);

        assertThat(restarted.get("org/pool")).isEqualTo(pool("Pending", "m-1", "Booting"));
        assertThat(restarted.get("org/pool-2")).isEqualTo(pool("Pending", "m-2", "Booting"));
    }

    @Test
    void aDeleteRemovesTheHeadAndEveryMemberAtOnceAndDropsAHeldWrite() {
        pools.put("org/pool", pool("AtTarget", "m-1", "Registered", "m-2", "Registered"));
        pools.put("org/other", pool("AtTarget", "m-3", "Registered"));
        commit();
        pools.put("org/pool", pool("AtTarget", "m-1", "Registered", "m-2", "Registered", "m-4", "Booting"));

        pools.delete("org/pool");
        fresh(100).delete("org/other");

        assertThat(entries(heads)).isEmpty();
        assertThat(entries(members)).isEmpty();
        commit();
        assertThat(entries(members)).isEmpty();
        assertThat(pools.get("org/pool")).isNull();
    }

    @Test
    void iteratingTheHeadsSeesTheHeldValues() {
        pools.put("org/pool", pool("Pending", "m-1", "Booting"));

        assertThat(entries(pools.heads())).containsOnlyKeys("org/pool");
        assertThat(members.get("org/pool/m-1")).isEqualTo("Booting");
    }

    @Test
    void storesBuiltWithoutTheLayerAreRefused() {
        KeyValueStore<String, String> plain = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore("plain"), Serdes.String(), Serdes.String())
                .withLoggingDisabled()
                .build();

        assertThatThrownBy(() -> new SplitValues<>(heads, plain, SHAPE, 2, pool -> 1))
                .hasMessageContaining("SplitValues.layered");
    }

    private SplitValues<Pool, String, String> fresh(long maxWeight) {
        return new SplitValues<>(heads, members, SHAPE, maxWeight, pool -> 1);
    }

    /** What Streams does to every store of a task before the commit's records go to the broker. */
    private void commit() {
        StreamsInternals.flushCache(heads);
        StreamsInternals.flushCache(members);
    }

    private static Pool pool(String status, String... nodesAndPhases) {
        SortedMap<String, String> nodes = new TreeMap<>();
        for (int i = 0; i < nodesAndPhases.length; i += 2) {
            nodes.put(nodesAndPhases[i], nodesAndPhases[i + 1]);
        }
        return new Pool(status, nodes);
    }

    private static SortedMap<String, String> entries(KeyValueStore<String, String> store) {
        SortedMap<String, String> entries = new TreeMap<>();
        try (var all = store.all()) {
            all.forEachRemaining(kv -> entries.put(kv.key, kv.value));
        }
        return entries;
    }

    private static KeyValueStore<String, String> open(String name, List<String> writes, AtomicInteger parsed) {
        Serde<String> counting = Serdes.serdeFrom(
                (topic, value) -> {
                    if (value == null) {
                        return null;
                    }
                    writes.add(value);
                    return value.getBytes(StandardCharsets.UTF_8);
                },
                (topic, bytes) -> {
                    parsed.incrementAndGet();
                    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
                });
        KeyValueStore<String, String> store = SplitValues.layered(
                        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), counting)
                                .withLoggingDisabled())
                .build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        return store;
    }
}
