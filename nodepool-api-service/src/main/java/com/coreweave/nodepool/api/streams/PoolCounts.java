package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Topics;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * Each org's pools and the bytes they take, for the pool count and storage quotas: this task's own partition counted
 * exactly in its store (in the same transaction as the pools themselves), every other partition as its task last
 * published it on {@code org-pools-counted} (a global store every instance holds). Creates in two partitions at the
 * same moment can each see the other's count one commit late, so an org can pass its limits by at most one pool per
 * other partition. Both figures travel in the one record a create already wrote for the count.
 */
final class PoolCounts {

    /** Set once this task's counts were taken from its pools (a store kept from before the quotas has none). */
    private static final String COUNTED = "\u0000counted";

    private final KeyValueStore<String, OrgPoolCount> own;
    private final TimestampedKeyValueStore<String, OrgPoolCount> all;
    private final int partition;
    private final int partitions;
    private final BiConsumer<String, Outbound> emit;

    /** The counts of the task of {@code partition}, one of the pool topics' {@code partitions}. */
    PoolCounts(
            KeyValueStore<String, OrgPoolCount> own,
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

    /**
     * Counts this task's pools once, from their keys and {@code counted} bytes, if its store has never counted them:
     * pools stored before the quotas are counted as they are, even past a limit.
     */
    <V> void countOnce(KeyValueIterator<String, V> pools, ToLongFunction<V> counted) {
        if (own.get(COUNTED) != null) {
            pools.close();
            return;
        }
        Map<String, long[]> orgs = new HashMap<>();
        try (pools) {
            pools.forEachRemaining(pool -> {
                long[] sums = orgs.computeIfAbsent(PoolKey.parse(pool.key).org(), o -> new long[2]);
                sums[0]++;
                sums[1] += counted.applyAsLong(pool.value);
            });
        }
        orgs.forEach((org, sums) -> set(org, (int) sums[0], sums[1]));
        own.put(COUNTED, new OrgPoolCount(COUNTED, partition, 0, 0));
    }

    /** The org's pools in every partition, and the bytes they count (its partition given as -1). */
    OrgPoolCount of(String org) {
        OrgPoolCount mine = own(org);
        int pools = mine.pools();
        long bytes = mine.bytes();
        for (int p = 0; p < partitions; p++) {
            ValueAndTimestamp<OrgPoolCount> other = p == partition ? null : all.get(OrgPoolCount.key(org, p));
            if (other != null) {
                pools += other.value().pools();
                bytes += other.value().bytes();
            }
        }
        return new OrgPoolCount(org, -1, pools, bytes);
    }

    void created(String org, long bytes) {
        OrgPoolCount mine = own(org);
        set(org, mine.pools() + 1, mine.bytes() + bytes);
    }

    /** A pool of the org now counts {@code delta} bytes more (or fewer); nothing is written when it is 0. */
    void resized(String org, long delta) {
        if (delta != 0) {
            OrgPoolCount mine = own(org);
            set(org, mine.pools(), Math.max(0, mine.bytes() + delta));
        }
    }

    void gone(String org, long bytes) {
        OrgPoolCount mine = own(org);
        set(org, Math.max(0, mine.pools() - 1), Math.max(0, mine.bytes() - bytes));
    }

    private OrgPoolCount own(String org) {
        OrgPoolCount count = own.get(org);
        return count == null ? new OrgPoolCount(org, partition, 0, 0) : count;
    }

    private void set(String org, int pools, long bytes) {
        OrgPoolCount count = new OrgPoolCount(org, partition, pools, bytes);
        own.put(org, count);
        emit.accept(count.key(), Outbound.to(Topics.ORG_POOLS_COUNTED, count));
    }
}
