package com.coreweave.nodepool.quota.rest;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.quota.config.QuotaSettings;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.quota.streams.StoreNames;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.annotation.PostConstruct;
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
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Reads quota ledgers from the Streams state store by interactive queries. Ledgers are spread over the instances
 * by quota key, so a listing takes this instance's share from its store and asks every other instance for its
 * share (with the caller's token, so tenancy holds there too).
 */
@ApplicationScoped
public class QuotaReads {

  private static final TypeReference<List<QuotaLedger>> LEDGERS = new TypeReference<>() { };

  @Inject
  KafkaStreams streams;

  @Inject
  QuotaSettings settings;

  @ConfigProperty(name = "quarkus.kafka-streams.application-server")
  String applicationServer;

  private HttpClient http;

  @PostConstruct
  void init() {
    http = HttpClient.newBuilder().connectTimeout(settings.forwardConnectTimeout()).build();
  }

  /** Every ledger of {@code org}, from all instances. */
  public List<QuotaLedger> ofOrg(String org, String authorization) {
    List<QuotaLedger> all = new ArrayList<>(localOfOrg(org));
    all.addAll(fromOthers("/internal/quotas/" + URLEncoder.encode(org, StandardCharsets.UTF_8), authorization));
    return all;
  }

  /** Every ledger of every org, from all instances. */
  public List<QuotaLedger> all(String authorization) {
    List<QuotaLedger> all = new ArrayList<>(localAll());
    all.addAll(fromOthers("/internal/quotas", authorization));
    return all;
  }

  public List<QuotaLedger> localOfOrg(String org) {
    return collect(store().prefixScan(PoolKey.orgPrefix(org), Serdes.String().serializer()));
  }

  public List<QuotaLedger> localAll() {
    return collect(store().all());
  }

  private List<QuotaLedger> collect(KeyValueIterator<String, QuotaLedger> iterator) {
    List<QuotaLedger> ledgers = new ArrayList<>();
    try (iterator) {
      iterator.forEachRemaining(kv -> ledgers.add(kv.value));
    } catch (InvalidStateStoreException e) {
      throw unavailable();
    }
    return ledgers;
  }

  private ReadOnlyKeyValueStore<String, QuotaLedger> store() {
    try {
      return streams.store(StoreQueryParameters.fromNameAndType(StoreNames.QUOTA_LEDGERS,
          QueryableStoreTypes.<String, QuotaLedger>keyValueStore()));
    } catch (InvalidStateStoreException e) {
      throw unavailable();
    }
  }

  private ApiException unavailable() {
    return ApiException.unavailable("quota store is not available right now (" + streams.state() + "); retry "
        + "shortly");
  }

  private List<QuotaLedger> fromOthers(String path, String authorization) {
    List<QuotaLedger> ledgers = new ArrayList<>();
    for (StreamsMetadata instance : streams.streamsMetadataForStore(StoreNames.QUOTA_LEDGERS)) {
      HostInfo host = instance.hostInfo();
      if (!(host.host() + ":" + host.port()).equals(applicationServer)) {
        ledgers.addAll(remote(host, path, authorization));
      }
    }
    return ledgers;
  }

  private List<QuotaLedger> remote(HostInfo host, String path, String authorization) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host.host() + ":" + host.port() + path))
        .timeout(settings.forwardTimeout())
        .header("Authorization", authorization)
        .header("Accept", "application/json")
        .GET().build();
    try {
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() != 200) {
        throw ApiException.unavailable("instance " + host.host() + ":" + host.port() + " answered "
            + response.statusCode() + " for " + path);
      }
      return Json.mapper().readValue(response.body(), LEDGERS);
    } catch (IOException e) {
      throw ApiException.unavailable("instance " + host.host() + ":" + host.port() + " did not answer: "
          + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.unavailable("interrupted while asking " + host.host() + ":" + host.port());
    }
  }
}
