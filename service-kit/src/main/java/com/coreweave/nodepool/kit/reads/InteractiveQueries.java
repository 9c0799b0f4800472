package com.coreweave.nodepool.kit.reads;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.streams.internals.DecodedStoreType;
import com.coreweave.nodepool.kit.tenancy.KeyScope;
import com.coreweave.nodepool.kit.tenancy.ScopedStore;
import com.coreweave.nodepool.kit.tenancy.StoreTenancy;
import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Reads of a service's state stores across its instances (Kafka Streams interactive queries): each instance holds only
 * its partitions' share, so a key is read where it lives and a scan asks every instance.
 *
 * <ul>
 *   <li>Every read is the current caller's: each store handle is cut to the keys the caller may read
 *       ({@link StoreTenancy}, {@link ScopedStore}), and what another instance answers is tested key by key again.
 *   <li>This instance's share is read by {@link LocalReads} (pages by {@link MergedPages}); another instance is asked
 *       by {@link RemoteReads} over HTTP with a signed peer assertion of the caller, and checks it the same way.
 *   <li>A store that is being restored or rebalanced answers 503, never a wrong "not found".
 * </ul>
 */
@ApplicationScoped
public class InteractiveQueries {

    @Inject
    KafkaStreams streams;

    @Inject
    StoreTenancy tenancy;

    @Inject
    CurrentCaller caller;

    @ConfigProperty(name = "quarkus.kafka-streams.application-server")
    String self;

    /** How long another instance may take to answer a forwarded read. */
    @ConfigProperty(name = "nodepool.interactive-queries.timeout", defaultValue = "5s")
    Duration timeout;

    /**
     * How long a read waits for Streams to finish a rebalance (or its start) before it answers 503: a rebalance is
     * usually over in well under a second, and a GET that waits for it is better than one the caller has to retry.
     */
    @ConfigProperty(name = "nodepool.interactive-queries.rebalance-wait", defaultValue = "5s")
    Duration rebalanceWait;

    /** Which service this is: another instance of it is what a forwarded read's assertion is made for. */
    @ConfigProperty(name = "quarkus.application.name")
    String service;

    private LocalReads local;
    private MergedPages pages;
    private RemoteReads remote;

    @PostConstruct
    void wire() {
        local = new LocalReads(streams, tenancy, rebalanceWait);
        pages = new MergedPages(local, tenancy);
        remote = new RemoteReads(streams, caller, local, self, service, timeout);
    }

    /** The value of {@code key} in this instance's share of {@code store}. */
    public <V> Optional<V> localGet(String store, String key) {
        return local.get(store, key);
    }

    /** The values of this instance's share of {@code store} whose key starts with {@code prefix} (all when null). */
    public <V> List<V> localValues(String store, String prefix) {
        return List.copyOf(this.<V>localEntries(store, prefix).values());
    }

    /** The entries of this instance's share of {@code store} whose key starts with {@code prefix} (all when null). */
    public <V> SortedMap<String, V> localEntries(String store, String prefix) {
        return local.entries(store, prefix);
    }

    /**
     * Up to {@code limit} entries of this instance's share of {@code store}, in key order, whose key starts with
     * {@code prefix} (any when null) and comes after {@code after} (from the start when null), merged from one scan per
     * local partition ({@link MergedPages}).
     */
    public <V> SortedMap<String, V> localPage(String store, String prefix, String after, int limit) {
        return pages.page(
                store,
                prefix,
                after,
                limit,
                partition -> local.shard(store, partition, QueryableStoreTypes.<String, V>keyValueStore()));
    }

    /**
     * As {@link #localPage(String, String, String, int)}, each value read from its stored bytes by {@code decode}
     * instead of the store's serde: for a page that needs a part of large values.
     */
    public <T> SortedMap<String, T> localPage(
            String store, String prefix, String after, int limit, Function<byte[], T> decode) {
        DecodedStoreType<T> decoded = new DecodedStoreType<>(decode);
        return pages.page(store, prefix, after, limit, partition -> local.shard(store, partition, decoded));
    }

    /**
     * What {@code read} finds in this instance's share of {@code store}, as the caller may see it: for a value kept
     * under several keys (read with gets and prefix scans of one store); a store being restored or rebalanced is a 503.
     */
    public <V, T> T readLocal(String store, Function<ReadOnlyKeyValueStore<String, V>, T> read) {
        return local.read(store, true, read);
    }

    /**
     * As {@link #readLocal}, over the whole store whoever calls, for a read whose answer holds no tenant's data (the
     * free machines of a zone, which anyone may ask for): named apart so that such a read is a choice, not a slip.
     */
    public <V, T> T readLocalAggregate(String store, Function<ReadOnlyKeyValueStore<String, V>, T> read) {
        caller.get();
        return local.read(store, false, read);
    }

    /**
     * Whether {@code key} of {@code store} is moving to another owner now (a rebalance, or an owner that is gone): a
     * write waiting for that key's task to answer may wait for the move instead of giving up.
     */
    public boolean moving(String store, String key) {
        return remote.moving(store, key);
    }

    /** The other instance that holds {@code key}, or empty when this instance does. */
    public Optional<HostInfo> remoteOwner(String store, String key) {
        KeyQueryMetadata meta = remote.owner(store, key);
        return remote.isSelf(meta.activeHost()) ? Optional.empty() : Optional.of(meta.activeHost());
    }

    /**
     * The value of {@code key} wherever it lives: here, or from the owner at {@code path} (404 there = empty). A key
     * the caller may not read is not looked for.
     */
    public <V> Optional<V> get(String store, String key, String path, Class<V> type) {
        if (!tenancy.scope(store).sees(key)) {
            return Optional.empty();
        }
        Optional<HostInfo> owner = remoteOwner(store, key);
        return owner.isEmpty()
                ? localGet(store, key)
                : fetch(owner.get(), path, Json.mapper().constructType(type));
    }

    /**
     * As {@link #get(String, String, String, Class)}, the local value read from its stored bytes by {@code decode}, for
     * a read that needs one part of a large value; the owner's answer at {@code path} is that part.
     */
    public <T> Optional<T> get(String store, String key, String path, Class<T> type, Function<byte[], T> decode) {
        if (!tenancy.scope(store).sees(key)) {
            return Optional.empty();
        }
        KeyQueryMetadata meta = remote.owner(store, key);
        if (!remote.isSelf(meta.activeHost())) {
            return fetch(meta.activeHost(), path, Json.mapper().constructType(type));
        }
        ReadOnlyKeyValueStore<String, T> shard = local.shard(store, meta.partition(), new DecodedStoreType<>(decode));
        if (shard == null) {
            // This instance owns the key but cannot read its partition yet (restoring): retry, not "not found".
            throw local.unavailable(store);
        }
        return local.get(store, shard, key);
    }

    /**
     * The entries of {@code store} under {@code key}'s prefix ({@code <key>/}) wherever {@code key} of {@code routing}
     * lives: the members of a value kept split (service-kit {@code SplitValues}), which are stored in the task of their
     * head's key though their own keys hash elsewhere. Read here, or from the owner at {@code path} (404 there = none).
     */
    public <V> SortedMap<String, V> membersOf(
            String store, String routing, String key, String path, TypeReference<Map<String, V>> type) {
        if (!tenancy.scope(store).sees(key)) {
            return new TreeMap<>();
        }
        KeyQueryMetadata meta = remote.owner(routing, key);
        if (!remote.isSelf(meta.activeHost())) {
            SortedMap<String, V> members = new TreeMap<>();
            this.<Map<String, V>>fetch(meta.activeHost(), path, Json.mapper().constructType(type))
                    .ifPresent(answer -> answer.forEach((id, value) -> {
                        if (tenancy.scope(store).sees(id)) {
                            members.put(id, value);
                        }
                    }));
            return members;
        }
        return localMembersOf(store, routing, key);
    }

    /** This instance's share of {@link #membersOf}: the members of {@code key} when this instance holds it. */
    public <V> SortedMap<String, V> localMembersOf(String store, String routing, String key) {
        return local.members(store, remote.owner(routing, key).partition(), key);
    }

    /** The value of {@code key} in this instance's share of {@code store}, read by {@code decode} from its bytes. */
    public <T> Optional<T> localGet(String store, String key, Function<byte[], T> decode) {
        if (!tenancy.scope(store).sees(key)) {
            return Optional.empty();
        }
        ReadOnlyKeyValueStore<String, T> shard =
                local.shard(store, remote.owner(store, key).partition(), new DecodedStoreType<>(decode));
        return shard == null ? Optional.empty() : local.get(store, shard, key);
    }

    /**
     * What every other instance holding a share of {@code store} answers at {@code path}, concatenated, each value kept
     * only if the caller may read the key {@code keyOf} gives it: another instance's answer is checked like a local
     * read.
     */
    public <T> List<T> fromOthers(String store, String path, TypeReference<List<T>> type, Function<T, String> keyOf) {
        KeyScope scope = tenancy.scope(store);
        List<T> all = new ArrayList<>();
        remote.<List<T>>eachOther(store, path, type)
                .forEach(answer -> answer.stream()
                        .filter(value -> scope.sees(keyOf.apply(value)))
                        .forEach(all::add));
        return all;
    }

    /** What every other instance holding a share of {@code store} answers at {@code path} as a map, merged. */
    public <V> SortedMap<String, V> entriesFromOthers(String store, String path, TypeReference<Map<String, V>> type) {
        KeyScope scope = tenancy.scope(store);
        SortedMap<String, V> all = new TreeMap<>();
        remote.<Map<String, V>>eachOther(store, path, type)
                .forEach(answer -> answer.forEach((key, value) -> {
                    if (scope.sees(key)) {
                        all.put(key, value);
                    }
                }));
        return all;
    }

    /**
     * What every other instance holding a share of {@code store} answers at {@code path}, for a read whose answers hold
     * no tenant's data (as {@link #readLocalAggregate}).
     */
    public <T> List<T> aggregateFromOthers(String store, String path, TypeReference<List<T>> type) {
        List<T> all = new ArrayList<>();
        remote.<List<T>>eachOther(store, path, type).forEach(all::addAll);
        return all;
    }

    /**
     * GET {@code path} on another instance with a peer assertion of the caller; 404 is empty, any other failure 503.
     */
    public <T> Optional<T> fetch(HostInfo host, String path, JavaType type) {
        return remote.fetch(host, path, type);
    }

    /** A path segment, URL-encoded. */
    public static String segment(String value) {
        return InternalReads.segment(value);
    }
}
