package com.coreweave.nodepool.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The live streams dashboards use: a Kubernetes watch of pools, and Server-Sent Events of the pools' events. */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class WatchIT {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";

    @TestHTTPResource("/")
    URL base;

    static TopicProbe probe;

    @BeforeAll
    static void catalogue() {
        probe = Facts.probeWithCatalogue();
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    /** Reads lines of a streaming response into a list until the test ends. */
    private List<String> follow(String path, String token) {
        List<String> lines = new CopyOnWriteArrayList<>();
        HttpRequest request = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + path))
                .header("Authorization", "Bearer " + token)
                .GET()
                .build();
        // A stream's headers arrive with its first element, so the response is awaited in the background.
        var pending = HttpClient.newHttpClient().sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
        Thread.ofVirtual().start(() -> {
            try (BufferedReader reader =
                    new BufferedReader(new InputStreamReader(pending.join().body()))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    if (!line.isBlank()) {
                        lines.add(line);
                    }
                }
            } catch (Exception e) {
                // the stream ends with the test
            }
        });
        return lines;
    }

    private static String manifest(String name, int target) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":%d}}""".formatted(name, target);
    }

    @Test
    void aWatchSeesExistingPoolsAddedThenChangesAndDeletionsOfItsOrgOnly() {
        var before = NodePoolApiIT.as("demo-token")
                .body(manifest("watched-before", 1))
                .post(POOLS)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath();
        List<String> lines = follow(POOLS + "?watch=true", "demo-token");
        List<String> others = follow(POOLS + "?watch=1", "other-token");

        await().atMost(Duration.ofSeconds(10)).until(() -> lines.stream().anyMatch(l -> l.contains("watched-before")));
        NodePoolApiIT.as("demo-token")
                .body(manifest("watched-after", 1))
                .post(POOLS)
                .then()
                .statusCode(201);
        NodePoolApiIT.as("demo-token")
                .contentType("application/merge-patch+json")
                .body("{\"spec\":{\"targetNodes\":2}}")
                .patch(POOLS + "/watched-after")
                .then()
                .statusCode(200);
        NodePoolApiIT.as("demo-token").delete(POOLS + "/watched-before").then().statusCode(200);
        new Facts(probe, before, "demo").reconciled(0, 0, true, true);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            List<JsonNode> events =
                    lines.stream().map(l -> Json.read(l, JsonNode.class)).toList();
            assertThat(events)
                    .anyMatch(e -> e.path("type").asText().equals("ADDED")
                            && e.path("object")
                                    .path("metadata")
                                    .path("name")
                                    .asText()
                                    .equals("watched-before"));
            assertThat(events)
                    .anyMatch(e -> e.path("type").asText().equals("ADDED")
                            && e.path("object")
                                    .path("metadata")
                                    .path("name")
                                    .asText()
                                    .equals("watched-after"));
            assertThat(events)
                    .anyMatch(e -> e.path("type").asText().equals("MODIFIED")
                            && e.path("object").path("spec").path("targetNodes").asInt() == 2);
            assertThat(events)
                    .anyMatch(e -> e.path("type").asText().equals("DELETED")
                            && e.path("object")
                                    .path("metadata")
                                    .path("name")
                                    .asText()
                                    .equals("watched-before"));
        });
        assertThat(others).noneMatch(l -> l.contains("watched-"));
    }

    @Test
    void warningEventsCanBeFollowedAsServerSentEvents() {
        var created = NodePoolApiIT.as("demo-token")
                .body(manifest("sse-pool", 1))
                .post(POOLS)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath();
        List<String> warnings = follow("/apis/compute.coreweave.com/v1alpha1/watch/events?types=Warning", "demo-token");
        Facts facts = new Facts(probe, created, "demo");
        facts.event("sse-normal", CwEvent.CWNodeRequestQueued, "Requested 1 node.");
        facts.event("sse-warning", CwEvent.PreemptionPending, "Node will be preempted.");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> warnings.stream().anyMatch(l -> l.contains("Preemption pending")));
        assertThat(warnings).noneMatch(l -> l.contains("CWNodeRequestQueued"));
        assertThat(warnings).allMatch(l -> !l.startsWith("data:") || l.contains("\"type\":\"Warning\""));
    }
}
