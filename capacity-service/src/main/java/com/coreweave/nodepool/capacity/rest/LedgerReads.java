package com.coreweave.nodepool.capacity.rest;

import com.coreweave.nodepool.capacity.config.CapacitySettings;
import com.coreweave.nodepool.capacity.domain.Availability;
import com.coreweave.nodepool.capacity.domain.LedgerState;
import com.coreweave.nodepool.capacity.streams.StoreNames;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Reads ledgers from the Streams state stores by interactive queries: a single ledger from the instance that owns
 * its key, lists and the Capacity Finder from every instance's share. Forwarded reads carry the caller's token.
 */
@ApplicationScoped
public class LedgerReads {

  @Inject
  KafkaStreams streams;

  @Inject
  CapacitySettings settings;

  @ConfigProperty(name = "quarkus.kafka-streams.application-server")
  String applicationServer;

  private final HttpClient http = HttpClient.newHttpClient();

  public Optional<LedgerState> ledger(ZoneTypeKey key, String authorization) {
    KeyQueryMetadata meta = streams.queryMetadataForKey(StoreNames.LEDGERS, key.toString(),
        Serdes.String().serializer());
    if (meta == null || KeyQueryMetadata.NOT_AVAILABLE.equals(meta)) {
      throw unavailable();
    }
    if (isSelf(meta.activeHost())) {
      return localLedger(key);
    }
    return this.<LedgerState>remote(meta.activeHost(), "/internal/ledgers/" + enc(key.zone()) + "/" + enc(key.instanceType()),
        authorization, Json.mapper().constructType(LedgerState.class));
  }

  /** Every ledger, from all instances. */
  public List<LedgerState> ledgers(String authorization) {
    List<LedgerState> all = new ArrayList<>(localLedgers());
    for (StreamsMetadata instance : others()) {
      all.addAll(this.<List<LedgerState>>remote(instance.hostInfo(), "/internal/ledgers", authorization,
          Json.mapper().constructType(new TypeReference<List<LedgerState>>() { })).orElse(List.of()));
    }
    return all;
  }

  /** The Capacity Finder's zones for {@code type}, from all instances; a zone without a fleet has nothing free. */
  public List<Availability> availability(InstanceType type, int nodes, String authorization) {
    Map<String, Availability> byZone = new HashMap<>();
    localAvailability(type, nodes).forEach(a -> byZone.put(a.zone(), a));
    for (StreamsMetadata instance : others()) {
      this.<List<Availability>>remote(instance.hostInfo(), "/internal/availability?instanceType=" + enc(type.name()) + "&nodes=" + nodes,
          authorization, Json.mapper().constructType(new TypeReference<List<Availability>>() { }))
          .orElse(List.of()).forEach(a -> byZone.put(a.zone(), a));
    }
    List<Availability> zones = new ArrayList<>();
    for (String zone : type.zones()) {
      zones.add(byZone.getOrDefault(zone, Availability.of(zone, null, nodes, !type.superchip())));
    }
    return Availability.ranked(zones);
  }

  public Optional<LedgerState> localLedger(ZoneTypeKey key) {
    try {
      return Optional.ofNullable(store().get(key.toString()));
    } catch (InvalidStateStoreException e) {
      throw unavailable();
    }
  }

  public List<LedgerState> localLedgers() {
    List<LedgerState> ledgers = new ArrayList<>();
    try (KeyValueIterator<String, LedgerState> it = store().all()) {
      it.forEachRemaining(kv -> ledgers.add(kv.value));
    } catch (InvalidStateStoreException e) {
      throw unavailable();
    }
    return ledgers;
  }

  /** This instance's zones of {@code type}; spot is never offered on Superchip types. */
  public List<Availability> localAvailability(InstanceType type, int nodes) {
    return localLedgers().stream()
        .filter(l -> l.instanceType().equals(type.name()) && type.offeredIn(l.zone()))
        .map(l -> Availability.of(l.zone(), l, nodes, !type.superchip()))
        .toList();
  }

  private ReadOnlyKeyValueStore<String, LedgerState> store() {
    try {
      return streams.store(StoreQueryParameters.fromNameAndType(StoreNames.LEDGERS,
          QueryableStoreTypes.<String, LedgerState>keyValueStore()));
    } catch (InvalidStateStoreException e) {
      throw unavailable();
    }
  }

  private List<StreamsMetadata> others() {
    return streams.streamsMetadataForStore(StoreNames.LEDGERS).stream()
        .filter(instance -> !isSelf(instance.hostInfo()))
        .toList();
  }

  private ApiException unavailable() {
    return ApiException.unavailable("the capacity ledgers are not available right now (" + streams.state()
        + "); retry shortly");
  }

  private boolean isSelf(HostInfo host) {
    return (host.host() + ":" + host.port()).equals(applicationServer);
  }

  private <T> Optional<T> remote(HostInfo host, String path, String authorization, JavaType type) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + path))
        .timeout(settings.remoteReadTimeout())
        .header("Authorization", authorization)
        .header("Accept", "application/json")
        .GET().build();
    try {
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() == 404) {
        return Optional.empty();
      }
      if (response.statusCode() != 200) {
        throw ApiException.unavailable("instance " + host + " answered " + response.statusCode() + " for " + path);
      }
      return Optional.of(Json.mapper().readValue(response.body(), type));
    } catch (IOException e) {
      throw ApiException.unavailable("instance " + host + " did not answer: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.unavailable("interrupted while asking " + host);
    }
  }

  private static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
