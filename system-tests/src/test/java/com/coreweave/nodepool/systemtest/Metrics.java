package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A service's {@code /q/metrics} as Prometheus scrapes them: with an operator's token, which they need. */
final class Metrics {

    static final String OPERATOR_TOKEN = "admin-token";

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Metrics() {}

    /** The metrics text of {@code service} of {@code stack}; an answer other than 200 fails. */
    static String of(Stack stack, Service service) {
        HttpRequest request = HttpRequest.newBuilder(stack.url(service).resolve("/q/metrics"))
                .header("Authorization", "Bearer " + OPERATOR_TOKEN)
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        try {
            HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("/q/metrics of " + service + " answered " + answer.statusCode());
            }
            return answer.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
