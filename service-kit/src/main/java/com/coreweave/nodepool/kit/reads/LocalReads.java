package com.coreweave.nodepool.kit.reads;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.streams.store.IteratorRace;
import com.coreweave.nodepool.kit.tenancy.ScopedStore;
import com.coreweave.nodepool.kit.tenancy.StoreTenancy;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads of this instance's share of a store, each store handle cut to the keys the current caller may read.
 *
 * <ul>
 *   <li>A read waits out a rebalance (or Streams' start) for up to the rebalance wait, then goes ahead.
 *   <li>A store being restored or rebalanced answers 503, never a wrong "not found".
 * </ul>
 */
final class LocalReads {

    /** The states a read waits out: soon RUNNING again, unlike an error or a shutdown. */
    static final Set<KafkaStreams.State> SETTLING = Set.of(KafkaStreams.State.CREATED, KafkaStreams.State.REBALANCING);

    private final KafkaStreams streams;
    private final StoreTenancy tenancy;
    private final Duration rebalanceWait;

    LocalReads(KafkaStreams streams, StoreTenancy tenancy, Duration rebalanceWait) {
        this.streams = streams;
        this.tenancy = tenancy;
        this.rebalanceWait = rebalanceWait;
    }

    /** The value of {@code key} in this instance's share of {@code store}. */
    <V> Optional<V> get(String store, String key) {
        settled();
        try {
            return Optional.ofNullable(this.<V>scoped(store).get(key));
        } catch (InvalidStateStoreException e) {
            throw unavailable(store);
        }
    }

    /** The entries of this instance's share of {@code store} whose key starts with {@code prefix} (all when null). */
    <V> SortedMap<String, V> entries(String store, String prefix) {
        settled();
        return IteratorRace.retried(() -> entriesOnce(store, prefix));
    }

    private <V> SortedMap<String, V> entriesOnce(String store, String prefix) {
        SortedMap<String, V> entries = new TreeMap<>();
        ReadOnlyKeyValueStore<String, V> local = scoped(store);
        try (KeyValueIterator<String, V> it = prefix == null
                ? local.all()
                : local.prefixScan(prefix, Serdes.String().serializer())) {
            it.forEachRemaining(kv -> entries.put(kv.key, kv.value));
        } catch (InvalidStateStoreException e) {
            throw unavailable(store);
        }
        return entries;
    }

    /** What {@code read} finds in {@code store} as the caller may see it ({@code scoped}) or whole. */
    <V, T> T read(String store, boolean scoped, Function<ReadOnlyKeyValueStore<String, V>, T> read) {
        settled();
        try {
            return read.apply(scoped ? scoped(store) : store(store));
        } catch (InvalidStateStoreException e) {
            throw unavailable(store);
        }
    }

    /** The members ({@code <key>/...}) of {@code key} in {@code store}'s {@code partition}, as the caller may see. */
    <V> SortedMap<String, V> members(String store, int partition, String key) {
        return IteratorRace.retried(() -> membersOnce(store, partition, key));
    }

    private <V> SortedMap<String, V> membersOnce(String store, int partition, String key) {
        ReadOnlyKeyValueStore<String, V> shard =
                shard(store, partition, QueryableStoreTypes.<String, V>keyValueStore());
        if (shard == null) {
            throw unavailable(store);
        }
        SortedMap<String, V> members = new TreeMap<>();
        try (KeyValueIterator<String, V> it = ScopedStore.of(shard, tenancy.scope(store))
                .prefixScan(key + "/", Serdes.String().serializer())) {
            it.forEachRemaining(kv -> members.put(kv.key, kv.value));
        } catch (InvalidStateStoreException e) {
            throw unavailable(store);
        }
        return members;
    }

    /** The value of {@code key} in {@code shard} of {@code store}. */
    <T> Optional<T> get(String store, ReadOnlyKeyValueStore<String, T> shard, String key) {
        try {
            return Optional.ofNullable(shard.get(key));
        } catch (InvalidStateStoreException e) {
            throw unavailable(store);
        }
    }

    /** The partitions of this instance's active tasks. */
    Set<Integer> activePartitions() {
        Set<Integer> partitions = new TreeSet<>();
        streams.metadataForLocalThreads()
                .forEach(thread -> thread.activeTasks()
                        .forEach(task -> task.topicPartitions().forEach(tp -> partitions.add(tp.partition()))));
        return partitions;
    }

    /** The store of one partition, when this instance hosts it actively; null otherwise. */
    <V> ReadOnlyKeyValueStore<String, V> shard(
            String name, int partition, QueryableStoreType<ReadOnlyKeyValueStore<String, V>> type) {
        try {
            return streams.store(
                    StoreQueryParameters.fromNameAndType(name, type).withPartition(partition));
        } catch (InvalidStateStoreException e) {
            return null;
        }
    }

    /** This instance's share of {@code name} as the current caller may read it. */
    private <V> ReadOnlyKeyValueStore<String, V> scoped(String name) {
        return ScopedStore.of(store(name), tenancy.scope(name));
    }

    private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
        try {
            return streams.store(
                    StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
        } catch (InvalidStateStoreException e) {
            throw unavailable(name);
        }
    }

    /** Waits, up to the rebalance wait, while Streams is starting or rebalancing; the read then goes ahead. */
    void settled() {
        long deadline = System.nanoTime() + rebalanceWait.toNanos();
        while (SETTLING.contains(streams.state())) {
            if (System.nanoTime() > deadline) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    ApiException unavailable(String store) {
        return ApiException.unavailable(
                "the " + store + " store is not available right now (" + streams.state() + "); retry shortly");
    }
}
