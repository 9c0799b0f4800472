package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.harness.Crc32Partitioner;
import com.coreweave.nodepool.systemtest.harness.Kcat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 10's proof that any Kafka client works, on the secured broker (issue 27): pools published with kcat as org
 * demo's principal (SASL_SSL, SCRAM-SHA-512) to demo's own topics, with kcat's defaults (librdkafka hashes keys with
 * CRC32, not Java's murmur2) and with explicit partitions 0, 1 and 2, reach the state a REST-created pool reaches; a
 * node reported busy through kcat is busy; a DELETE published through kcat, LZ4-compressed as a platform team's
 * producer may be, is carried out.
 */
@StackUse.Shares
@ResourceLock("US-CENTRAL-07A/gd-8xa100-i128")
class AnyKafkaClientIT {

    static final String ZONE = "US-CENTRAL-07A";
    static final String TYPE = "gd-8xa100-i128";
    static final int PARTITIONS = 3;
    static Kcat kcat;
    static Api demo;

    @BeforeAll
    static void setUp() {
        kcat = Kcat.require();
        demo = SystemStack.api("demo-token");
        SystemStack.quota("demo", ZONE, TYPE, 24);
        SystemStack.fleet(ZONE, TYPE, 24);
    }

    /** Deletes this class's pools and waits until they are gone, so the zone's quota is free for the next class. */
    @AfterAll
    static void deletePools() {
        List<String> pools = new ArrayList<>();
        demo.get(Api.POOLS).body().path("items").forEach(pool -> {
            String name = pool.at("/metadata/name").asText();
            if (ZONE.equals(pool.at("/spec/region").asText())
                    && (name.startsWith("kcat-") || name.equals("rest-twin"))) {
                pools.add(name);
            }
        });
        pools.forEach(name -> demo.delete(Api.POOLS + "/" + name));
        await().atMost(Duration.ofSeconds(120))
                .untilAsserted(() -> assertThat(pools)
                        .allMatch(name -> demo.get(Api.POOLS + "/" + name).code() == 404));
    }

    @Test
    void poolsPublishedWithKcatsDefaultsAndOnEveryPartitionReachTheStateOfARestPool() {
        List<String> hashed = List.of("kcat-a", "kcat-b", "kcat-c", "kcat-d", "kcat-e", "kcat-f");
        assertThat(hashed)
                .as("kcat's partitioner puts some of these elsewhere than Java's would")
                .anyMatch(name ->
                        Crc32Partitioner.partition("demo/" + name, PARTITIONS) != murmur2Partition("demo/" + name));
        kcat(
                List.of(),
                hashed.stream()
                        .map(name -> line(name, apply("k-" + name, name, 1)))
                        .toList());
        List<String> placed = new ArrayList<>();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            String name = "kcat-p" + partition;
            placed.add(name);
            kcat(List.of("-p", Integer.toString(partition)), List.of(line(name, apply("k-" + name, name, 2))));
        }
        assertThat(demo.post(Api.POOLS, pool("rest-twin", 1)).code()).isEqualTo(201);

        awaitHealthy("rest-twin", 1);
        hashed.forEach(name -> awaitHealthy(name, 1));
        placed.forEach(name -> awaitHealthy(name, 2));
        assertThat(eventReasons("kcat-a")).containsAll(eventReasons("rest-twin"));
    }

    @Test
    void nodeActivityAndADeletePublishedWithKcatAreCarriedOut() {
        String name = "kcat-lifecycle";
        kcat(List.of(), List.of(line(name, apply("l-1", name, 1))));
        awaitHealthy(name, 1);
        String node = demo.get(Api.POOLS + "/" + name + "/nodes")
                .body()
                .at("/items/0/metadata/name")
                .asText();
        int elsewhere = (murmur2Partition("demo/" + name) + 1) % PARTITIONS;

        kcat("node-activity-reported", List.of("-p", Integer.toString(elsewhere)), List.of(line(name, """
        {"org":"demo","pool":"%s","node":"%s","active":true,"terminationGracePeriodSeconds":5}""".formatted(
                        name, node)
                .replace("\n", ""))));
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(activeStatus(name)).isEqualTo("True"));

        kcat(List.of("-p", Integer.toString(elsewhere), "-z", "lz4"), List.of(line(name, delete("l-2", name))));
        await().atMost(Duration.ofSeconds(90))
                .untilAsserted(() ->
                        assertThat(demo.get(Api.POOLS + "/" + name).code()).isEqualTo(404));
    }

    private static String activeStatus(String pool) {
        for (var c : demo.get(Api.POOLS + "/" + pool + "/nodes").body().at("/items/0/status/conditions")) {
            if ("CWActive".equals(c.path("type").asText())) {
                return c.path("status").asText();
            }
        }
        return "absent";
    }

    private static void awaitHealthy(String name, int nodes) {
        await().atMost(Duration.ofSeconds(120))
                .untilAsserted(() -> SpineIT.assertHealthy(demo.get(Api.POOLS + "/" + name), nodes));
    }

    private static List<String> eventReasons(String pool) {
        List<String> reasons = new ArrayList<>();
        demo.get(Api.POOLS + "/" + pool + "/events")
                .body()
                .path("items")
                .forEach(e -> reasons.add(e.path("reason").asText()));
        return reasons.stream().distinct().toList();
    }

    /**
     * Publishes {@code key|value} lines with kcat as org demo's platform team would, to demo's own topic, e.g.
     * {@code kcat -F .stack/kcat-demo.conf -P -t nodepool-requested.demo -K'|'}.
     */
    private static void kcat(List<String> options, List<String> lines) {
        kcat("nodepool-requested", options, lines);
    }

    private static void kcat(String topic, List<String> options, List<String> lines) {
        List<String> arguments = new ArrayList<>(List.of(
                "-F", SystemStack.get().kcatConfig("tenant-demo").toString(), "-P", "-t", topic + ".demo", "-K", "|"));
        arguments.addAll(options);
        Kcat.Result result = kcat.run(arguments, String.join("\n", lines) + "\n");
        assertThat(result.exitCode())
                .as("kcat exit code; it said: %s", result.output())
                .isZero();
    }

    private static String line(String pool, String value) {
        return "demo/" + pool + "|" + value;
    }

    private static String apply(String id, String name, int target) {
        return envelope(id, name, "APPLY", """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","targetNodes":%d,"region":"%s"}}""".formatted(name, TYPE, target, ZONE));
    }

    private static String delete(String id, String name) {
        return envelope(id, name, "DELETE", "{\"metadata\":{\"name\":\"" + name + "\"}}");
    }

    private static String envelope(String id, String name, String operation, String nodePool) {
        return ("{\"specversion\":\"1.0\",\"id\":\"" + id + "\",\"source\":\"platform-team/kcat\","
                        + "\"type\":\"NodePoolRequested\",\"subject\":\"demo/" + name + "\",\"time\":\"" + Instant.now()
                        + "\","
                        + "\"datacontenttype\":\"application/json\",\"data\":{\"operation\":\"" + operation
                        + "\",\"nodePool\":"
                        + nodePool + "}}")
                .replace("\n", "");
    }

    private static String pool(String name, int target) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","targetNodes":%d,"region":"%s"}}""".formatted(name, TYPE, target, ZONE);
    }

    private static int murmur2Partition(String key) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
    }
}
