package com.coreweave.nodepool.systemtest.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A plain HTTP/1.1 caller for the benchmark (keep-alive connections, one per concurrent caller), timing each call from
 * just before the request is sent until its whole body has been read.
 */
final class BenchClient {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** An answer: status code (-1 when the call itself failed), body, and how long the call took. */
    record Answer(int code, String body, long nanos) {

        boolean ok() {
            return code >= 200 && code < 300;
        }
    }

    Answer get(URI base, String path, String token) {
        return send(request(base, path, token).GET());
    }

    Answer post(URI base, String path, String token, String json, String idempotencyKey) {
        HttpRequest.Builder request = request(base, path, token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return send(request);
    }

    Answer put(URI base, String path, String token, String json) {
        return send(request(base, path, token)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    Answer delete(URI base, String path, String token) {
        return send(request(base, path, token).DELETE());
    }

    private static HttpRequest.Builder request(URI base, String path, String token) {
        return HttpRequest.newBuilder(base.resolve(path))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(60));
    }

    private Answer send(HttpRequest.Builder request) {
        HttpRequest built = request.build();
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = http.send(built, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body(), System.nanoTime() - start);
        } catch (IOException e) {
            return new Answer(-1, e.toString(), System.nanoTime() - start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A NodePool manifest as JSON. {@code region} may be null (the api-service's default zone). */
    static String pool(String name, String region, String instanceType, int targetNodes) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},\
        "spec":{%s"instanceType":"%s","targetNodes":%d}}""".formatted(name, region == null ? "" : "\"region\":\"" + region + "\",", instanceType, targetNodes);
    }
}
