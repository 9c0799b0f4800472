package com.coreweave.nodepool.kit.reads;

import com.coreweave.nodepool.kit.streams.store.IteratorRace;
import com.coreweave.nodepool.kit.tenancy.KeyScope;
import com.coreweave.nodepool.kit.tenancy.ScopedStore;
import com.coreweave.nodepool.kit.tenancy.StoreTenancy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.IntFunction;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A page of this instance's share of a store, in key order: one range scan per local partition, merged as it goes.
 *
 * <ul>
 *   <li>A page reads (and deserializes) what it returns plus one entry per partition, not the store, nor a page per
 *       partition.
 *   <li>Each partition's store is cut to the caller's keys ({@link ScopedStore}) before it is scanned.
 * </ul>
 */
final class MergedPages {

    /** Sorts after every key the services use (their keys are ASCII). */
    private static final String END = "\uffff";

    private final LocalReads local;
    private final StoreTenancy tenancy;

    MergedPages(LocalReads local, StoreTenancy tenancy) {
        this.local = local;
        this.tenancy = tenancy;
    }

    /**
     * Up to {@code limit} entries of {@code store} whose key starts with {@code prefix} (any when null) and comes after
     * {@code after} (from the start when null), from the partitions' stores {@code shards} gives (null: not here).
     */
    <V> SortedMap<String, V> page(
            String store,
            String prefix,
            String after,
            int limit,
            IntFunction<ReadOnlyKeyValueStore<String, V>> shards) {
        local.settled();
        return IteratorRace.retried(() -> pageOnce(store, prefix, after, limit, shards));
    }

    private <V> SortedMap<String, V> pageOnce(
            String store,
            String prefix,
            String after,
            int limit,
            IntFunction<ReadOnlyKeyValueStore<String, V>> shards) {
        String start = prefix == null ? "" : prefix;
        String from = from(start, after);
        String to = start + END;
        List<KeyValueIterator<String, V>> scans = new ArrayList<>();
        try {
            KeyScope scope = tenancy.scope(store);
            for (int partition : local.activePartitions()) {
                ReadOnlyKeyValueStore<String, V> found = shards.apply(partition);
                if (found != null) {
                    scans.add(ScopedStore.of(found, scope).range(from, to));
                }
            }
            return merge(scans, after, limit);
        } catch (InvalidStateStoreException e) {
            throw local.unavailable(store);
        } finally {
            scans.forEach(KeyValueIterator::close);
        }
    }

    /** Where a page after {@code after} starts within {@code start}'s keys. */
    static String from(String start, String after) {
        // A position after a key of another prefix (a forged or altered continue token) starts no earlier than the
        // prefix.
        return after != null && after.compareTo(start) > 0 ? after : start;
    }

    /** The first {@code limit} entries of {@code scans} (each in key order), {@code after} itself left out. */
    static <V> SortedMap<String, V> merge(List<KeyValueIterator<String, V>> scans, String after, int limit) {
        SortedMap<String, V> page = new TreeMap<>();
        PriorityQueue<Head<V>> heads = new PriorityQueue<>(Comparator.comparing((Head<V> head) -> head.entry().key));
        for (KeyValueIterator<String, V> scan : scans) {
            Head.next(scan, after).ifPresent(heads::add);
        }
        while (page.size() < limit && !heads.isEmpty()) {
            Head<V> smallest = heads.poll();
            page.put(smallest.entry().key, smallest.entry().value);
            Head.next(smallest.scan(), after).ifPresent(heads::add);
        }
        return page;
    }

    /** The next entry of one partition's scan, with the scan it came from. */
    private record Head<V>(KeyValue<String, V> entry, KeyValueIterator<String, V> scan) {

        static <V> Optional<Head<V>> next(KeyValueIterator<String, V> scan, String after) {
            while (scan.hasNext()) {
                KeyValue<String, V> entry = scan.next();
                if (!entry.key.equals(after)) {
                    return Optional.of(new Head<>(entry, scan));
                }
            }
            return Optional.empty();
        }
    }
}
