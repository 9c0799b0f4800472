package com.coreweave.nodepool.kit.reads;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.streams.internals.DecodedStoreType;
import com.coreweave.nodepool.kit.tenancy.KeyScope;
import com.coreweave.nodepool.kit.tenancy.ScopedStore;
import com.coreweave.nodepool.kit.tenancy.StoreTenancy;
import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Reads of a service's state stores across its instances (Kafka Streams interactive queries): each instance holds
 * only its partitions' share, so a key is read where it lives and a scan asks every instance. Every read is the
 * current caller's: each store handle is cut to the keys the caller may read ({@link StoreTenancy}, {@link
 * ScopedStore}) and what another instance answers is tested key by key again; another instance is asked over HTTP
 * with the caller's own credential, and checks it the same way. A store that is being restored or rebalanced
 * answers 503, never a wrong "not found".
 */
@ApplicationScoped
public class InteractiveQueries {

  /** Sorts after every key the services use (their keys are ASCII). */
  private static final String END = "\uffff";
  /** The states a read waits out: soon RUNNING again, unlike an error or a shutdown. */
  private static final Set<KafkaStreams.State> SETTLING = Set.of(KafkaStreams.State.CREATED,
      KafkaStreams.State.REBALANCING);

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

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** The value of {@code key} in this instance's share of {@code store}. */
  public <V> Optional<V> localGet(String store, String key) {
    settled();
    try {
      return Optional.ofNullable(this.<V>scoped(store).get(key));
    } catch (InvalidStateStoreException e) {
      throw unavailable(store);
    }
  }

  /** The values of this instance's share of {@code store} whose key starts with {@code prefix} (all when null). */
  public <V> List<V> localValues(String store, String prefix) {
    return List.copyOf(this.<V>localEntries(store, prefix).values());
  }

  /** The entries of this instance's share of {@code store} whose key starts with {@code prefix} (all when null). */
  public <V> SortedMap<String, V> localEntries(String store, String prefix) {
    settled();
    SortedMap<String, V> entries = new TreeMap<>();
    ReadOnlyKeyValueStore<String, V> local = scoped(store);
    try (KeyValueIterator<String, V> it = prefix == null ? local.all()
        : local.prefixScan(prefix, Serdes.String().serializer())) {
      it.forEachRemaining(kv -> entries.put(kv.key, kv.value));
    } catch (InvalidStateStoreException e) {
      throw unavailable(store);
    }
    return entries;
  }

  /**
   * Up to {@code limit} entries of this instance's share of {@code store}, in key order, whose key starts with
   * {@code prefix} (any when null) and comes after {@code after} (from the start when null): one range scan per
   * local partition, merged as it goes, so a page reads (and deserializes) what it returns plus one entry per
   * partition, not the size of the store, nor a page per partition.
   */
  public <V> SortedMap<String, V> localPage(String store, String prefix, String after, int limit) {
    return mergedPage(store, prefix, after, limit, partition -> shard(store, partition,
        QueryableStoreTypes.<String, V>keyValueStore()));
  }

  /**
   * As {@link #localPage(String, String, String, int)}, each value read from its stored bytes by {@code decode}
   * instead of the store's serde: for a page that needs a part of large values.
   */
  public <T> SortedMap<String, T> localPage(String store, String prefix, String after, int limit,
                                            Function<byte[], T> decode) {
    DecodedStoreType<T> decoded = new DecodedStoreType<>(decode);
    return mergedPage(store, prefix, after, limit, partition -> shard(store, partition, decoded));
  }

  private <V> SortedMap<String, V> mergedPage(String store, String prefix, String after, int limit,
                                              IntFunction<ReadOnlyKeyValueStore<String, V>> shards) {
    settled();
    String start = prefix == null ? "" : prefix;
    // A position after a key of another prefix (a forged or altered continue token) starts no earlier than the prefix.
    String from = after != null && after.compareTo(start) > 0 ? after : start;
    String to = start + END;
    Set<Integer> partitions = new TreeSet<>();
    streams.metadataForLocalThreads().forEach(thread -> thread.activeTasks().forEach(task ->
        task.topicPartitions().forEach(tp -> partitions.add(tp.partition()))));
    SortedMap<String, V> page = new TreeMap<>();
    List<KeyValueIterator<String, V>> scans = new ArrayList<>();
    try {
      PriorityQueue<Head<V>> heads = new PriorityQueue<>(Comparator.comparing((Head<V> head) -> head.entry().key));
      KeyScope scope = tenancy.scope(store);
      for (int partition : partitions) {
        ReadOnlyKeyValueStore<String, V> found = shards.apply(partition);
        if (found != null) {
          KeyValueIterator<String, V> scan = ScopedStore.of(found, scope).range(from, to);
          scans.add(scan);
          Head.next(scan, after).ifPresent(heads::add);
        }
      }
      while (page.size() < limit && !heads.isEmpty()) {
        Head<V> smallest = heads.poll();
        page.put(smallest.entry().key, smallest.entry().value);
        Head.next(smallest.scan(), after).ifPresent(heads::add);
      }
    } catch (InvalidStateStoreException e) {
      throw unavailable(store);
    } finally {
      scans.forEach(KeyValueIterator::close);
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

  /** The store of one partition, when this instance hosts it actively; null otherwise. */
  private <V> ReadOnlyKeyValueStore<String, V> shard(String name, int partition,
                                                    QueryableStoreType<ReadOnlyKeyValueStore<String, V>> type) {
    try {
      return streams.store(StoreQueryParameters.fromNameAndType(name, type).withPartition(partition));
    } catch (InvalidStateStoreException e) {
      return null;
    }
  }

  /**
   * What {@code read} finds in this instance's share of {@code store}, as the caller may see it: for a value kept
   * under several keys (read with gets and prefix scans of one store); a store being restored or rebalanced is a 503.
   */
  public <V, T> T readLocal(String store, Function<ReadOnlyKeyValueStore<String, V>, T> read) {
    settled();
    try {
      return read.apply(scoped(store));
    } catch (InvalidStateStoreException e) {
      throw unavailable(store);
    }
  }

  /**
   * As {@link #readLocal}, over the whole store whoever calls, for a read whose answer holds no tenant's data (the
   * free machines of a zone, which anyone may ask for): named apart so that such a read is a choice, not a slip.
   */
  public <V, T> T readLocalAggregate(String store, Function<ReadOnlyKeyValueStore<String, V>, T> read) {
    caller.get();
    settled();
    try {
      return read.apply(store(store));
    } catch (InvalidStateStoreException e) {
      throw unavailable(store);
    }
  }

  /** The other instance that holds {@code key}, or empty when this instance does. */
  public Optional<HostInfo> remoteOwner(String store, String key) {
    KeyQueryMetadata meta = owner(store, key);
    return isSelf(meta.activeHost()) ? Optional.empty() : Optional.of(meta.activeHost());
  }

  private KeyQueryMetadata owner(String store, String key) {
    settled();
    KeyQueryMetadata meta;
    try {
      meta = streams.queryMetadataForKey(store, key, Serdes.String().serializer());
    } catch (InvalidStateStoreException e) {
      // Streams not started yet (StreamsNotStartedException): the same answer as a rebalance, so callers retry.
      throw unavailable(store);
    }
    if (meta == null || KeyQueryMetadata.NOT_AVAILABLE.equals(meta)) {
      throw unavailable(store);
    }
    return meta;
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
    return owner.isEmpty() ? localGet(store, key) : fetch(owner.get(), path, Json.mapper().constructType(type));
  }

  /**
   * As {@link #get(String, String, String, Class)}, the local value read from its stored bytes by {@code decode},
   * for a read that needs one part of a large value; the owner's answer at {@code path} is that part.
   */
  public <T> Optional<T> get(String store, String key, String path, Class<T> type, Function<byte[], T> decode) {
    if (!tenancy.scope(store).sees(key)) {
      return Optional.empty();
    }
    KeyQueryMetadata meta = owner(store, key);
    if (!isSelf(meta.activeHost())) {
      return fetch(meta.activeHost(), path, Json.mapper().constructType(type));
    }
    ReadOnlyKeyValueStore<String, T> shard = shard(store, meta.partition(), new DecodedStoreType<>(decode));
    if (shard == null) {
      // This instance owns the key but cannot read its partition yet (restoring): retry, not "not found".
      throw unavailable(store);
    }
    return read(store, shard, key);
  }

  /**
   * The entries of {@code store} under {@code key}'s prefix ({@code <key>/}) wherever {@code key} of {@code routing}
   * lives: the members of a value kept split (service-kit {@code SplitValues}), which are stored in the task of their
   * head's key though their own keys hash elsewhere. Read here, or from the owner at {@code path} (404 there = none).
   */
  public <V> SortedMap<String, V> membersOf(String store, String routing, String key, String path,
                                            TypeReference<Map<String, V>> type) {
    if (!tenancy.scope(store).sees(key)) {
      return new TreeMap<>();
    }
    KeyQueryMetadata meta = owner(routing, key);
    if (!isSelf(meta.activeHost())) {
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
    ReadOnlyKeyValueStore<String, V> shard = shard(store, owner(routing, key).partition(),
        QueryableStoreTypes.<String, V>keyValueStore());
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

  /** The value of {@code key} in this instance's share of {@code store}, read by {@code decode} from its bytes. */
  public <T> Optional<T> localGet(String store, String key, Function<byte[], T> decode) {
    if (!tenancy.scope(store).sees(key)) {
      return Optional.empty();
    }
    ReadOnlyKeyValueStore<String, T> shard = shard(store, owner(store, key).partition(),
        new DecodedStoreType<>(decode));
    return shard == null ? Optional.empty() : read(store, shard, key);
  }

  private <T> Optional<T> read(String store, ReadOnlyKeyValueStore<String, T> shard, String key) {
    try {
      return Optional.ofNullable(shard.get(key));
    } catch (InvalidStateStoreException e) {
      throw unavailable(store);
    }
  }

  /**
   * What every other instance holding a share of {@code store} answers at {@code path}, concatenated, each value
   * kept only if the caller may read the key {@code keyOf} gives it: another instance's answer is checked like a
   * local read.
   */
  public <T> List<T> fromOthers(String store, String path, TypeReference<List<T>> type, Function<T, String> keyOf) {
    KeyScope scope = tenancy.scope(store);
    List<T> all = new ArrayList<>();
    this.<List<T>>eachOther(store, path, type).forEach(answer -> answer.stream()
        .filter(value -> scope.sees(keyOf.apply(value))).forEach(all::add));
    return all;
  }

  /** What every other instance holding a share of {@code store} answers at {@code path} as a map, merged. */
  public <V> SortedMap<String, V> entriesFromOthers(String store, String path, TypeReference<Map<String, V>> type) {
    KeyScope scope = tenancy.scope(store);
    SortedMap<String, V> all = new TreeMap<>();
    this.<Map<String, V>>eachOther(store, path, type).forEach(answer -> answer.forEach((key, value) -> {
      if (scope.sees(key)) {
        all.put(key, value);
      }
    }));
    return all;
  }

  /**
   * What every other instance holding a share of {@code store} answers at {@code path}, for a read whose answers
   * hold no tenant's data (as {@link #readLocalAggregate}).
   */
  public <T> List<T> aggregateFromOthers(String store, String path, TypeReference<List<T>> type) {
    List<T> all = new ArrayList<>();
    this.<List<T>>eachOther(store, path, type).forEach(all::addAll);
    return all;
  }

  private <T> List<T> eachOther(String store, String path, TypeReference<?> type) {
    settled();
    List<T> answers = new ArrayList<>();
    for (var instance : streams.streamsMetadataForStore(store)) {
      if (!isSelf(instance.hostInfo())) {
        this.<T>fetch(instance.hostInfo(), path, Json.mapper().constructType(type)).ifPresent(answers::add);
      }
    }
    return answers;
  }

  /** GET {@code path} on another instance with the caller's credential; 404 is empty, any other failure 503. */
  public <T> Optional<T> fetch(HostInfo host, String path, JavaType type) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + path))
        .timeout(timeout)
        .header("Authorization", caller.credential())
        .header("Accept", "application/json")
        .GET().build();
    try {
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() == 404) {
        return Optional.empty();
      }
      if (response.statusCode() != 200) {
        throw ApiException.unavailable("instance " + host.host() + ":" + host.port() + " answered "
            + response.statusCode() + " for " + path);
      }
      return Optional.of(Json.mapper().readValue(response.body(), type));
    } catch (IOException e) {
      throw ApiException.unavailable("instance " + host.host() + ":" + host.port() + " did not answer: "
          + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.unavailable("interrupted while asking " + host.host() + ":" + host.port());
    }
  }

  /** A path segment, URL-encoded. */
  public static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** This instance's share of {@code name} as the current caller may read it. */
  private <V> ReadOnlyKeyValueStore<String, V> scoped(String name) {
    return ScopedStore.of(store(name), tenancy.scope(name));
  }

  private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
    try {
      return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
    } catch (InvalidStateStoreException e) {
      throw unavailable(name);
    }
  }

  /** Waits, up to {@link #rebalanceWait}, while Streams is starting or rebalancing; the read then goes ahead. */
  private void settled() {
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

  private boolean isSelf(HostInfo host) {
    return (host.host() + ":" + host.port()).equals(self);
  }

  private ApiException unavailable(String store) {
    return ApiException.unavailable("the " + store + " store is not available right now (" + streams.state()
        + "); retry shortly");
  }
}
