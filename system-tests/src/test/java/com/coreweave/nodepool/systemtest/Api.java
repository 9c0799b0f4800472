package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A caller of one service's REST API with one bearer token, as a platform team's tooling would be. Given several
 * instances it is a client behind a load balancer: each request goes to the next instance, and one that refuses the
 * connection or answers 502/503/504 is tried again on the others, with backoff, for up to {@link #RETRY_BUDGET}
 * ({@link RestAvailability} counts it all).
 */
final class Api {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * How long a request is retried before it counts as failed or unanswered: longer than a Streams session (6 s) and
     * the rebalance after it, as a client behind a load balancer that retries with backoff would wait.
     */
    private static final Duration RETRY_BUDGET = Duration.ofSeconds(30);

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private static final AtomicInteger NEXT = new AtomicInteger();

    private final List<URI> instances;
    private final String token;
    private final RestAvailability availability;

    Api(URI base, String token) {
        this(List.of(base), token, null);
    }

    Api(List<URI> instances, String token, RestAvailability availability) {
        this.instances = List.copyOf(instances);
        this.token = token;
        this.availability = availability;
    }

    /** An HTTP answer: its status code and its JSON body (missing when the body is not JSON). */
    record Answer(int code, JsonNode body) {

        String text(String pointer) {
            return body.at(pointer).asText(null);
        }

        int number(String pointer) {
            return body.at(pointer).asInt(-1);
        }

        /** The condition of that type in a NodePool's status, or a missing node. */
        JsonNode condition(String type) {
            for (JsonNode c : body.at("/status/conditions")) {
                if (type.equals(c.path("type").asText())) {
                    return c;
                }
            }
            return MissingNode.getInstance();
        }
    }

    Answer get(String path) {
        return send(path, HttpRequest.newBuilder().GET());
    }

    Answer post(String path, String json) {
        return send(
                path,
                HttpRequest.newBuilder()
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A create a client may retry: the same {@code idempotencyKey} gets the first call's answer. */
    Answer post(String path, String json, String idempotencyKey) {
        return send(
                path,
                HttpRequest.newBuilder()
                        .header("Content-Type", "application/json")
                        .header("Idempotency-Key", idempotencyKey)
                        .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    Answer put(String path, String json) {
        return send(
                path,
                HttpRequest.newBuilder()
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    Answer patch(String path, String mergePatch) {
        return send(
                path,
                HttpRequest.newBuilder()
                        .header("Content-Type", "application/merge-patch+json")
                        .method("PATCH", HttpRequest.BodyPublishers.ofString(mergePatch)));
    }

    /** Any request with any body, as a careless or hostile client might send it. */
    Answer send(String method, String path, String contentType, String body) {
        return send(
                path,
                HttpRequest.newBuilder()
                        .header("Content-Type", contentType)
                        .method(method, HttpRequest.BodyPublishers.ofString(body)));
    }

    Answer delete(String path) {
        return send(path, HttpRequest.newBuilder().DELETE());
    }

    private Answer send(String path, HttpRequest.Builder request) {
        request.header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30));
        if (instances.size() == 1 && availability == null) {
            return send(request.uri(instances.get(0).resolve(path)));
        }
        int first = Math.floorMod(NEXT.getAndIncrement(), instances.size());
        RuntimeException failure = null;
        Answer answer = null;
        long deadline = System.nanoTime() + RETRY_BUDGET.toNanos();
        Duration backoff = FIRST_BACKOFF;
        for (int attempt = 0; ; attempt++) {
            if (attempt > 0) {
                if (System.nanoTime() + backoff.toNanos() > deadline) {
                    break;
                }
                pause(backoff);
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
                if (availability != null) {
                    availability.retry();
                }
            }
            URI base = instances.get((first + attempt) % instances.size());
            try {
                answer = send(request.copy().uri(base.resolve(path)));
                failure = null;
                if (answer.code() < 502 || answer.code() > 504) {
                    break;
                }
            } catch (UncheckedIOException e) {
                failure = e;
            }
        }
        if (availability != null) {
            availability.ended(failure != null ? -1 : answer.code());
        }
        if (failure != null) {
            throw failure;
        }
        return answer;
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body;
            try {
                body = response.body().isBlank()
                        ? MissingNode.getInstance()
                        : Json.mapper().readTree(response.body());
            } catch (IOException e) {
                body = MissingNode.getInstance();
            }
            return new Answer(response.statusCode(), body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits up to {@code within} for the pool's AtTarget condition to say TargetMet. */
    void awaitTargetMet(String name, Duration within) {
        await().atMost(within)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(get(POOLS + "/" + name)
                                .condition("AtTarget")
                                .path("reason")
                                .asText())
                        .as("%s's AtTarget", name)
                        .isEqualTo("TargetMet"));
    }

    /** A pool's manifest in one zone ({@code spec.region}). */
    static String pool(String name, String instanceType, String zone, int target) {
        ObjectNode manifest = (ObjectNode) Json.read(pool(name, instanceType, target), JsonNode.class);
        ((ObjectNode) manifest.get("spec")).put("region", zone);
        return manifest.toString();
    }

    static String pool(String name, String instanceType, int target) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","targetNodes":%d}}""".formatted(name, instanceType, target);
    }
}
