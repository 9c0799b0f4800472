package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Topics;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * Each org's pools, for the pool count quota: this task's own partition counted exactly in its store (in the same
 * transaction as the pools themselves), every other partition as its task last published it on
 * {@code org-pools-counted} (a global store every instance holds). Creates in two partitions at the same moment can
 * each see the other's count one commit late, so an org can pass its limit by at most one pool per other partition.
 */
final class PoolCounts {

    /** Set once this task's counts were taken from its pools (a store kept from before the quota has none). */
    private static final String COUNTED = "\u0000counted";

    private final KeyValueStore<String, Integer> own;
    private final TimestampedKeyValueStore<String, OrgPoolCount> all;
    private final int partition;
    private final int partitions;
    private final BiConsumer<String, Outbound> emit;

    /** The counts of the task of {@code partition}, one of the pool topics' {@code partitions}. */
    PoolCounts(
            KeyValueStore<String, Integer> own,
            TimestampedKeyValueStore<String, OrgPoolCount> all,
            int partition,
            int partitions,
            BiConsumer<String, Outbound> emit) {
        this.own = own;
        this.all = all;
        this.partition = partition;
        this.partitions = partitions;
        this.emit = emit;
    }

    /** Counts this task's pools once, from their keys, if its store has never counted them. */
    void countOnce(KeyValueIterator<String, ?> pools) {
        if (own.get(COUNTED) != null) {
            pools.close();
            return;
        }
        Map<String, Integer> counted = new HashMap<>();
        try (pools) {
            pools.forEachRemaining(pool -> counted.merge(PoolKey.parse(pool.key).org(), 1, Integer::sum));
        }
        counted.forEach(this::set);
        own.put(COUNTED, 1);
    }

    /** The org's pools in every partition. */
    int of(String org) {
        int total = own(org);
        for (int p = 0; p < partitions; p++) {
            ValueAndTimestamp<OrgPoolCount> other = p == partition ? null : all.get(OrgPoolCount.key(org, p));
            total += other == null ? 0 : other.value().pools();
        }
        return total;
    }

    void created(String org) {
        set(org, own(org) + 1);
    }

    void gone(String org) {
        set(org, Math.max(0, own(org) - 1));
    }

    private int own(String org) {
        Integer count = own.get(org);
        return count == null ? 0 : count;
    }

    private void set(String org, int pools) {
        own.put(org, pools);
        OrgPoolCount count = new OrgPoolCount(org, partition, pools);
        emit.accept(count.key(), Outbound.to(Topics.ORG_POOLS_COUNTED, count));
    }
}
