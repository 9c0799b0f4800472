package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.localkafka.KafkaAccess;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the shared secured stack by a tenant or a stranger, each bounded in count and time, each checking what
 * another org or an operator sees while it runs; shared helpers live in {@link HostileLoad}. It loads the stack on
 * purpose and measures others' latency meanwhile, so it runs alone on it.
 */
@StackUse.Disrupts
class HostileLoadIT {

    // ---- Fair and audited on Kafka (items 3 and 5): old timestamps, client quotas, the audit trail under a flood ----

    /** A zone and type no other system test uses, so the pools here have the machines to themselves. */
    static final String ZONE = "US-EAST-06A";

    static final String TYPE = "gd-1xgh200";
    /** How long another org's pool may take from its POST to TargetMet while a tenant floods (a boot takes 2 s). */
    static final Duration TARGET_MET_BOUND = Duration.ofSeconds(30);

    static Stack stack;
    static Api other;

    @BeforeAll
    static void setUp() {
        stack = SystemStack.forDisruption();
        other = SystemStack.api(stack, "other-token");
        SystemStack.quota(stack, "other", ZONE, TYPE, 8);
        SystemStack.fleet(stack, ZONE, TYPE, 8);
    }

    @Test
    void aTenantFloodingOldTimestampsIsStampedByTheBrokerAndAnotherOrgsPoolsStillMeetTheirTarget() throws Exception {
        long year2001 = Instant.parse("2001-01-01T00:00:00Z").toEpochMilli();
        Instant began = Instant.now();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger sent = new AtomicInteger();
        CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> {
            try (KafkaProducer<String, byte[]> demo = HostileLoad.producer(stack, KafkaAccess.tenant("demo"))) {
                long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                for (int i = 0; !stop.get() && System.nanoTime() < until; i++) {
                    demo.send(new ProducerRecord<>(
                            "nodepool-requested.demo", null, year2001, "demo/flood-" + (i % 500), unsupported(i)));
                    sent.incrementAndGet();
                }
                demo.flush();
            }
        });
        List<Long> toTargetMet = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                String name =
                        "hostile-ts-" + i + "-" + UUID.randomUUID().toString().substring(0, 6);
                Instant posted = Instant.now();
                assertThat(other.post(Api.POOLS, pool(name, 1)).code()).isEqualTo(201);
                await().atMost(TARGET_MET_BOUND)
                        .untilAsserted(() -> SpineIT.assertHealthy(other.get(Api.POOLS + "/" + name), 1));
                toTargetMet.add(Duration.between(posted, Instant.now()).toMillis());
            }
        } finally {
            stop.set(true);
            flood.get();
        }

        assertThat(sent.get())
                .as("records the tenant sent with timestamps of 2001")
                .isGreaterThan(100);
        List<ConsumerRecord<String, String>> stored =
                HostileLoad.readAll(stack, KafkaAccess.tenant("demo"), "nodepool-requested.demo");
        assertThat(stored.stream().filter(r -> r.key() != null && r.key().startsWith("demo/flood-")))
                .as("as the broker stored them: its own append time, not the producer's 2001")
                .isNotEmpty()
                .allSatisfy(r -> {
                    assertThat(r.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
                    assertThat(r.timestamp()).isGreaterThanOrEqualTo(began.toEpochMilli() - 1_000);
                });
        System.out.printf(
                "HostileLoadIT: %d records of 2001 sent by tenant-demo; other's pools at target after %s ms%n",
                sent.get(), toTargetMet);
    }

    @Test
    void aTenantOverItsByteRateIsThrottledWhileAnotherOrgsWritesStayPrompt() throws Exception {
        byte[] chunk = new byte[64 * 1024];
        Arrays.fill(chunk, (byte) 'x');
        // Past the first ten seconds' worth, which the broker's quota window lets a new client send at once.
        int chunks = 256;
        CompletableFuture<long[]> demo = CompletableFuture.supplyAsync(() -> {
            try (KafkaProducer<String, byte[]> producer = HostileLoad.producer(stack, KafkaAccess.tenant("demo"))) {
                long start = System.nanoTime();
                for (int i = 0; i < chunks; i++) {
                    producer.send(new ProducerRecord<>("workload-pending.demo", "demo/big-" + i, chunk));
                }
                producer.flush();
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                double throttled = producer.metrics().entrySet().stream()
                        .filter(e -> e.getKey().name().equals("produce-throttle-time-max"))
                        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                        .max()
                        .orElse(0);
                return new long[] {elapsed, (long) throttled};
            }
        });
        List<Long> latencies = new ArrayList<>();
        try (KafkaProducer<String, byte[]> producer = HostileLoad.producer(stack, KafkaAccess.tenant("other"))) {
            while (!demo.isDone() || latencies.size() < 20) {
                int i = latencies.size();
                latencies.add(HostileLoad.send(
                        producer, "workload-pending.other", "other/gone-" + i, gone("other", "gone-" + i), null));
                Thread.sleep(100);
            }
        }
        long[] flood = demo.get();

        long mib = (long) chunks * chunk.length / (1024 * 1024);
        assertThat(flood[0])
                .as(
                        "%d MiB at tenant-demo's %s bytes a second",
                        mib, KafkaAccess.TENANT_QUOTAS.get("producer_byte_rate"))
                .isGreaterThan(Duration.ofSeconds(mib / 4).toMillis());
        assertThat(flood[1])
                .as("the broker's throttle, as the tenant's producer saw it (ms)")
                .isPositive();
        KeptService.assertKept("other's produce", List.of(), latencies);
        System.out.printf(
                "HostileLoadIT: tenant-demo's %d MiB took %d ms (throttled up to %d ms a request); other's %d sends:"
                        + " p50 %d ms, p99 %d ms%n",
                mib,
                flood[0],
                flood[1],
                latencies.size(),
                HostileLoad.percentile(latencies, 50),
                HostileLoad.percentile(latencies, 99));
    }

    @Test
    void tenThousandRefusedRequestsLeaveTheEarlierWritesOnTheAuditTopicAndAreSummarized() {
        String marker = "hostile-audit-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(other.post(Api.POOLS, pool(marker, 0)).code()).isEqualTo(201);
        Instant began = Instant.now();
        int refusals = 10_000;

        Map<Integer, Integer> codes = HostileLoad.flood(
                URI.create(stack.url(Service.API) + Api.POOLS + "?flood=" + marker),
                "not-a-token-" + marker,
                "{}",
                // What a client chooses of its audit event, as large as the HTTP layer takes.
                Map.of("User-Agent", "hostile/" + "u".repeat(2_000), "X-Forwarded-For", "10.9.9.9, ".repeat(200)),
                refusals,
                8);

        assertThat(codes.keySet()).as("answers to the flood: %s", codes).isSubsetOf(401, 429);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(3))
                .untilAsserted(() -> {
                    List<JsonNode> trail = new ArrayList<>();
                    long bytes = 0;
                    boolean earlier = false;
                    for (ConsumerRecord<String, String> record :
                            HostileLoad.readAll(stack, KafkaAccess.OPERATOR, Topics.AUDIT_EVENTS.name())) {
                        JsonNode event = Json.mapper().readTree(record.value());
                        earlier |= marker.equals(event.at("/objectRef/name").asText())
                                && event.at("/responseStatus/code").asInt() == 201;
                        if (event.at("/user/username").asText().equals("system:anonymous")
                                && !Instant.parse(event.at("/stageTimestamp").asText())
                                        .isBefore(began)) {
                            trail.add(event);
                            bytes += record.value().getBytes(StandardCharsets.UTF_8).length;
                        }
                    }
                    assertThat(earlier)
                            .as("the create made before the flood, on audit-events")
                            .isTrue();
                    long counted = trail.stream()
                            .mapToLong(e -> 1
                                    + e.at("/annotations/nodepool.coreweave.com~1summarized-refusals")
                                            .asLong(0))
                            .sum();
                    assertThat(counted).as("refusals counted on audit-events").isGreaterThanOrEqualTo(refusals);
                    assertThat(trail).as("events the flood cost the trail").hasSizeLessThan(50);
                    assertThat(bytes).as("bytes the flood cost the trail").isLessThan(100_000);
                });
    }

    /** A NodePoolRequested CloudEvent of a type the topic does not carry: refused when read, cheaply. */
    private static byte[] unsupported(int i) {
        return ("{\"specversion\":\"1.0\",\"id\":\"flood-" + i + "\",\"source\":\"hostile/ts\",\"type\":\"Nonsense\","
                        + "\"subject\":\"demo/flood-" + (i % 500) + "\",\"data\":{\"pad\":\"" + "p".repeat(900)
                        + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] gone(String org, String name) {
        return ("{\"specversion\":\"1.0\",\"id\":\"" + name + "\",\"source\":\"hostile/quota\","
                        + "\"type\":\"WorkloadGone\",\"subject\":\"" + org + "/" + name + "\",\"data\":{\"org\":\""
                        + org + "\",\"name\":\"" + name + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String pool(String name, int nodes) {
        return "{\"apiVersion\":\"compute.coreweave.com/v1alpha1\",\"kind\":\"NodePool\",\"metadata\":{\"name\":\""
                + name + "\"},\"spec\":{\"instanceType\":\"" + TYPE + "\",\"targetNodes\":" + nodes + ",\"region\":\""
                + ZONE + "\"}}";
    }
}
