package com.coreweave.nodepool.kit.reads;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.auth.PeerTarget;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Reads of the other instances of this service: which instance holds a key, and what an instance answers at an
 * {@link InternalReads} path.
 *
 * <ul>
 *   <li>Another instance is asked over HTTP with a short-lived assertion this one signs of who the caller is (never the
 *       caller's own credential), and checks the caller as this one would.
 *   <li>Its answer is raw: the facade checks it key by key again before the caller sees it.
 *   <li>404 there is empty; any other failure, or no answer in time, is a 503.
 * </ul>
 */
final class RemoteReads {

    private final KafkaStreams streams;
    private final CurrentCaller caller;
    private final LocalReads local;
    private final String self;
    private final String service;
    private final Duration timeout;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    RemoteReads(
            KafkaStreams streams,
            CurrentCaller caller,
            LocalReads local,
            String self,
            String service,
            Duration timeout) {
        this.streams = streams;
        this.caller = caller;
        this.local = local;
        this.self = self;
        this.service = service;
        this.timeout = timeout;
    }

    /** Where {@code key} of {@code store} lives: its active host and partition; 503 while nobody knows. */
    KeyQueryMetadata owner(String store, String key) {
        local.settled();
        KeyQueryMetadata meta;
        try {
            meta = streams.queryMetadataForKey(store, key, Serdes.String().serializer());
        } catch (InvalidStateStoreException e) {
            // Streams not started yet (StreamsNotStartedException): the same answer as a rebalance, so callers retry.
            throw local.unavailable(store);
        }
        if (meta == null || KeyQueryMetadata.NOT_AVAILABLE.equals(meta)) {
            throw local.unavailable(store);
        }
        return meta;
    }

    /**
     * Whether {@code key} of {@code store} is on its way to another owner: Streams is rebalancing here, nobody is known
     * to own it, or its owner takes no connection (gone, and its group has not noticed yet).
     */
    boolean moving(String store, String key) {
        if (LocalReads.SETTLING.contains(streams.state())) {
            return true;
        }
        KeyQueryMetadata meta;
        try {
            meta = streams.queryMetadataForKey(store, key, Serdes.String().serializer());
        } catch (InvalidStateStoreException e) {
            return true;
        }
        if (meta == null || KeyQueryMetadata.NOT_AVAILABLE.equals(meta)) {
            return true;
        }
        return !isSelf(meta.activeHost()) && !takesConnections(meta.activeHost());
    }

    private static boolean takesConnections(HostInfo host) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host.host(), host.port()), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** What every other instance holding a share of {@code store} answers at {@code path}, unchecked. */
    <T> List<T> eachOther(String store, String path, TypeReference<?> type) {
        local.settled();
        List<T> answers = new ArrayList<>();
        for (var instance : streams.streamsMetadataForStore(store)) {
            if (!isSelf(instance.hostInfo())) {
                this.<T>fetch(instance.hostInfo(), path, Json.mapper().constructType(type))
                        .ifPresent(answers::add);
            }
        }
        return answers;
    }

    /**
     * GET {@code path} on another instance with a peer assertion of the caller; 404 is empty, any other failure 503.
     */
    <T> Optional<T> fetch(HostInfo host, String path, JavaType type) {
        URI uri = URI.create(InternalReads.url(host.host(), host.port(), path));
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header(CurrentCaller.PEER_ASSERTION_HEADER, caller.peerAssertion(PeerTarget.get(service, uri)))
                .header("Accept", "application/json")
                .GET()
                .build();
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
            throw ApiException.unavailable(
                    "instance " + host.host() + ":" + host.port() + " did not answer: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while asking " + host.host() + ":" + host.port());
        }
    }

    boolean isSelf(HostInfo host) {
        return (host.host() + ":" + host.port()).equals(self);
    }
}
