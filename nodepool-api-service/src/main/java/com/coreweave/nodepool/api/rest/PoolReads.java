package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.streams.StoreNames;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Reads pools from the Streams state stores by interactive queries: the instance that holds a pool's partition
 * answers from its store; any other instance forwards the read to it (with the caller's token), so every instance
 * answers for every pool. Lists ask every instance for its share.
 */
@ApplicationScoped
public class PoolReads {

  @Inject
  KafkaStreams streams;

  @ConfigProperty(name = "quarkus.kafka-streams.application-server")
  String applicationServer;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public Optional<PoolView> view(PoolKey key, String authorization) {
    HostInfo owner = owner(StoreNames.POOL_VIEWS, key.toString());
    if (isSelf(owner)) {
      return localView(key);
    }
    return remote(owner, "/internal/pool-views/" + enc(key.org()) + "/" + enc(key.pool()), authorization,
        PoolView.class);
  }

  public Optional<PoolEvents> events(PoolKey key, String authorization) {
    HostInfo owner = owner(StoreNames.POOL_EVENTS, key.toString());
    if (isSelf(owner)) {
      return localEvents(key);
    }
    return remote(owner, "/internal/pool-events/" + enc(key.org()) + "/" + enc(key.pool()), authorization,
        PoolEvents.class);
  }

  /** Every pool of {@code org}, from all instances. */
  public List<PoolView> views(String org, String authorization) {
    List<PoolView> all = new ArrayList<>(localViews(org));
    for (StreamsMetadata instance : streams.streamsMetadataForStore(StoreNames.POOL_VIEWS)) {
      if (!isSelf(instance.hostInfo())) {
        all.addAll(remote(instance.hostInfo(), "/internal/pool-views/" + enc(org), authorization,
            new TypeReference<List<PoolView>>() { }).orElse(List.of()));
      }
    }
    return all;
  }

  public Optional<PoolView> localView(PoolKey key) {
    return Optional.ofNullable(store(StoreNames.POOL_VIEWS, PoolView.class).get(key.toString()));
  }

  public Optional<PoolEvents> localEvents(PoolKey key) {
    return Optional.ofNullable(store(StoreNames.POOL_EVENTS, PoolEvents.class).get(key.toString()));
  }

  public List<PoolView> localViews(String org) {
    List<PoolView> views = new ArrayList<>();
    try (KeyValueIterator<String, PoolView> it = store(StoreNames.POOL_VIEWS, PoolView.class)
        .prefixScan(PoolKey.orgPrefix(org), Serdes.String().serializer())) {
      it.forEachRemaining(kv -> views.add(kv.value));
    } catch (InvalidStateStoreException e) {
      throw ApiException.unavailable("pool store is not available right now (rebalancing); retry shortly");
    }
    return views;
  }

  private <V> ReadOnlyKeyValueStore<String, V> store(String name, Class<V> type) {
    try {
      return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
    } catch (InvalidStateStoreException e) {
      throw ApiException.unavailable("pool store is not available right now (" + streams.state() + "); retry "
          + "shortly");
    }
  }

  private HostInfo owner(String store, String key) {
    KeyQueryMetadata meta = streams.queryMetadataForKey(store, key, Serdes.String().serializer());
    if (meta == null || KeyQueryMetadata.NOT_AVAILABLE.equals(meta)) {
      throw ApiException.unavailable("pool store is not available right now (" + streams.state() + "); retry "
          + "shortly");
    }
    return meta.activeHost();
  }

  private boolean isSelf(HostInfo host) {
    return (host.host() + ":" + host.port()).equals(applicationServer);
  }

  private <T> Optional<T> remote(HostInfo host, String path, String authorization, Class<T> type) {
    return remote(host, path, authorization, Json.mapper().constructType(type));
  }

  private <T> Optional<T> remote(HostInfo host, String path, String authorization, TypeReference<T> type) {
    return remote(host, path, authorization, Json.mapper().constructType(type));
  }

  private <T> Optional<T> remote(HostInfo host, String path, String authorization,
                                 com.fasterxml.jackson.databind.JavaType type) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + path))
        .timeout(Duration.ofSeconds(5))
        .header("Authorization", authorization)
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
    } catch (java.io.IOException e) {
      throw ApiException.unavailable("instance " + host.host() + ":" + host.port() + " did not answer: "
          + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.unavailable("interrupted while asking " + host.host() + ":" + host.port());
    }
  }

  private static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
