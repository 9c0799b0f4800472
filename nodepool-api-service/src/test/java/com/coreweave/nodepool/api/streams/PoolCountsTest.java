package com.coreweave.nodepool.api.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.topics.Topics;
import java.lang.reflect.Proxy;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;

/**
 * Each org's pools and their bytes for the pool count and storage quotas: this partition's own pools counted exactly,
 * the other partitions' as their tasks last published them, and every change of the own count published for the others.
 */
class PoolCountsTest {

    private static final int PARTITION = 0;
    private static final int PARTITIONS = 3;

    private final Map<String, OrgPoolCount> own = new TreeMap<>();
    private final Map<String, ValueAndTimestamp<OrgPoolCount>> all = new TreeMap<>();
    /** What the counts published, by key, the last value winning as on the compacted topic. */
    private final Map<String, Outbound> published = new LinkedHashMap<>();

    @SuppressWarnings("unchecked")
    private final PoolCounts counts = new PoolCounts(
            store(KeyValueStore.class, own),
            store(TimestampedKeyValueStore.class, all),
            PARTITION,
            PARTITIONS,
            published::put);

    @Test
    void shouldCountEachOrgsPoolsFromTheStoredPools() {
        // when
        counts.countOnce(pools("acme/a", "acme/b", "globex/x"), pool -> 4096);
        // then
        assertThat(counts.of("acme").pools()).isEqualTo(2);
        assertThat(counts.of("acme").bytes()).isEqualTo(8192);
        assertThat(counts.of("globex").pools()).isEqualTo(1);
        assertThat(counts.of("initech").pools()).isZero();
        assertThat(counts.of("initech").bytes()).isZero();
    }

    @Test
    void shouldPublishTheCountOfEachOrgItCounted() {
        counts.countOnce(pools("acme/a", "acme/b", "globex/x"), pool -> 4096);

        assertThat(published)
                .containsEntry("acme/0", Outbound.to(Topics.ORG_POOLS_COUNTED, new OrgPoolCount("acme", 0, 2, 8192)))
                .containsEntry(
                        "globex/0", Outbound.to(Topics.ORG_POOLS_COUNTED, new OrgPoolCount("globex", 0, 1, 4096)))
                .hasSize(2);
    }

    @Test
    void shouldCountTheStoredPoolsOnlyOnce() {
        // given
        counts.countOnce(pools("acme/a"), pool -> 4096);
        counts.created("acme", 4096);
        Pools again = pools("acme/a", "acme/b", "acme/c");
        // when the task starts again on its kept store
        counts.countOnce(again, pool -> 4096);
        // then the counts kept are not replaced, and the pools are not read
        assertThat(counts.of("acme").pools()).isEqualTo(2);
        assertThat(counts.of("acme").bytes()).isEqualTo(8192);
        assertThat(again.read).isZero();
        assertThat(again.closed).isTrue();
    }

    @Test
    void shouldCloseThePoolsItCounted() {
        Pools pools = pools("acme/a");

        counts.countOnce(pools, pool -> 4096);

        assertThat(pools.closed).isTrue();
    }

    @Test
    void shouldAddTheCountsTheOtherPartitionsPublished() {
        // given
        counts.created("acme", 4096);
        all.put(OrgPoolCount.key("acme", 1), published(new OrgPoolCount("acme", 1, 4, 16384)));
        all.put(OrgPoolCount.key("acme", 2), published(new OrgPoolCount("acme", 2, 1, 8192)));
        all.put(OrgPoolCount.key("globex", 1), published(new OrgPoolCount("globex", 1, 7, 28672)));
        // then
        assertThat(counts.of("acme").pools()).isEqualTo(6);
        assertThat(counts.of("acme").bytes()).isEqualTo(28672);
        assertThat(counts.of("globex").pools()).isEqualTo(7);
    }

    @Test
    void shouldTrustItsOwnCountOverWhatItPublishedForItsPartition() {
        // given a published count of this partition that is a commit behind
        counts.created("acme", 4096);
        counts.created("acme", 4096);
        all.put(OrgPoolCount.key("acme", PARTITION), published(new OrgPoolCount("acme", PARTITION, 1, 4096)));
        // then
        assertThat(counts.of("acme").pools()).isEqualTo(2);
        assertThat(counts.of("acme").bytes()).isEqualTo(8192);
    }

    @Test
    void shouldCountACreatedPoolAndPublishTheNewCount() {
        // when
        counts.created("acme", 4096);
        counts.created("acme", 8192);
        // then
        assertThat(counts.of("acme").pools()).isEqualTo(2);
        assertThat(published)
                .containsEntry("acme/0", Outbound.to(Topics.ORG_POOLS_COUNTED, new OrgPoolCount("acme", 0, 2, 12288)));
    }

    @Test
    void shouldCountAPoolThatChangedSizeWithoutWritingWhenItKeptItsBlocks() {
        counts.created("acme", 4096);
        published.clear();

        counts.resized("acme", 0);
        assertThat(published).isEmpty();

        counts.resized("acme", 8192);
        assertThat(counts.of("acme").bytes()).isEqualTo(12288);
        assertThat(published)
                .containsEntry("acme/0", Outbound.to(Topics.ORG_POOLS_COUNTED, new OrgPoolCount("acme", 0, 1, 12288)));
    }

    @Test
    void shouldUncountAGonePoolAndPublishTheNewCount() {
        // given
        counts.created("acme", 4096);
        counts.created("acme", 8192);
        // when
        counts.gone("acme", 8192);
        // then
        assertThat(counts.of("acme").pools()).isEqualTo(1);
        assertThat(published)
                .containsEntry("acme/0", Outbound.to(Topics.ORG_POOLS_COUNTED, new OrgPoolCount("acme", 0, 1, 4096)));
    }

    @Test
    void shouldNeverCountBelowZero() {
        counts.gone("acme", 4096);

        assertThat(counts.of("acme").pools()).isZero();
        assertThat(own).containsEntry("acme", new OrgPoolCount("acme", 0, 0, 0));
    }

    private static ValueAndTimestamp<OrgPoolCount> published(OrgPoolCount count) {
        return ValueAndTimestamp.make(count, 0L);
    }

    /** A key-value store over {@code map}: what the counts use of one (get and put). */
    @SuppressWarnings("rawtypes")
    private static <S> S store(Class<S> type, Map map) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            return switch (method.getName()) {
                case "get" -> map.get(args[0]);
                case "put" -> {
                    @SuppressWarnings("unchecked")
                    Object previous = map.put(args[0], args[1]);
                    yield previous;
                }
                default -> throw new UnsupportedOperationException(method.getName());
            };
        }));
    }

    private static Pools pools(String... keys) {
        return new Pools(List.of(keys).iterator());
    }

    /** The pools of the task's store, by key, as its range iterator gives them. */
    private static final class Pools implements KeyValueIterator<String, Object> {
        private final Iterator<String> keys;
        int read;
        boolean closed;

        Pools(Iterator<String> keys) {
            this.keys = keys;
        }

        @Override
        public boolean hasNext() {
            return keys.hasNext();
        }

        @Override
        public KeyValue<String, Object> next() {
            read++;
            return KeyValue.pair(keys.next(), "pool");
        }

        @Override
        public void close() {
            closed = true;
        }

        @Override
        public String peekNextKey() {
            throw new UnsupportedOperationException();
        }
    }
}
