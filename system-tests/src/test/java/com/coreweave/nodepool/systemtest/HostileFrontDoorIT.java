package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.harness.JwtKeys;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The front door under attack on the shared secured stack: a credential is checked from the headers before any body
 * byte is read, so strangers cost headers only, and another org is answered meanwhile. It floods the stack on purpose
 * and measures another org's latency, so it runs alone on it.
 */
@StackUse.Disrupts
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileFrontDoorIT {

    static final String ZONE = "US-EAST-06A";
    static final String TYPE = "gd-1xgh200";
    /** The flood of the issue: 110 sockets, each an unfinished chunked body of about 2.9 MiB, no credential. */
    static final int SOCKETS = 110;

    static final long BODY = 2_900 * 1024;
    static final Duration FLOOD = Duration.ofSeconds(20);
    /**
     * How long a stranger's socket waits after its refusal before it tries again: 110 sockets make about 500 uploads a
     * second, as many as this 2-core machine's client threads can send beside the stack without starving it.
     */
    static final long RETRY_PAUSE_MILLIS = 200;

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static Api other;
    static URI api;
    /** A client that stopped in the middle of its headers when the class began; how long until it was cut off. */
    static CompletableFuture<Duration> slowHeaders;

    @BeforeAll
    static void setUp() {
        other = SystemStack.api(SystemStack.forDisruption(), "other-token");
        api = SystemStack.forDisruption().url(Service.API);
        SystemStack.quota(SystemStack.forDisruption(), "other", ZONE, TYPE, 8);
        // Started first and checked last, so that its minute of idleness passes while the other tests run.
        slowHeaders = CompletableFuture.supplyAsync(
                () -> {
                    Instant start = Instant.now();
                    try (RawHttp slow = RawHttp.connect(api)) {
                        slow.send("GET " + Api.POOLS + " HTTP/1.1\r\nHost: localhost\r\nAuthoriz");
                        String answer = slow.readUntilClosed(120_000);
                        System.out.printf("slow-header client: cut off (answer: %s)%n", answer);
                        return Duration.between(start, Instant.now());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                task -> Thread.ofPlatform().daemon().name("slow-header-client").start(task));
    }

    @Test
    void anUnauthenticatedChunkedBodyFloodIsRefusedAtItsHeadersWhileAnotherOrgIsAnswered() throws Exception {
        // The first creates after a start warm the path up, untimed; the next ones are the same client's latency
        // without the flood, on this machine as loaded as it is now (other classes run beside this one).
        List<Long> calm = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            String name =
                    "front-door-warm-" + i + "-" + UUID.randomUUID().toString().substring(0, 6);
            long start = System.nanoTime();
            assertThat(other.post(Api.POOLS, pool(name)).code()).isEqualTo(201);
            if (i >= 3) {
                calm.add((System.nanoTime() - start) / 1_000_000);
            }
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong bodyBytesSent = new AtomicLong();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger throttled = new AtomicInteger();
        AtomicInteger closedEarly = new AtomicInteger();
        AtomicInteger otherAnswers = new AtomicInteger();
        List<String> unexpected = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(SOCKETS * 2);
        List<CompletableFuture<Void>> flood = new ArrayList<>();
        long until = System.nanoTime() + FLOOD.toNanos();
        for (int s = 0; s < SOCKETS; s++) {
            flood.add(CompletableFuture.runAsync(
                    () -> {
                        while (!stop.get() && System.nanoTime() < until) {
                            strangerUpload(pool, bodyBytesSent, refused, throttled, closedEarly, unexpected);
                            pause(RETRY_PAUSE_MILLIS);
                        }
                    },
                    pool));
        }
        List<Long> latencies = new ArrayList<>();
        List<Boolean> ready = new ArrayList<>();
        try {
            for (int i = 0; System.nanoTime() < until; i++) {
                String name =
                        "front-door-" + i + "-" + UUID.randomUUID().toString().substring(0, 6);
                long start = System.nanoTime();
                Api.Answer created = other.post(Api.POOLS, pool(name));
                latencies.add((System.nanoTime() - start) / 1_000_000);
                start = System.nanoTime();
                Api.Answer read = other.get(Api.POOLS + "/" + name);
                latencies.add((System.nanoTime() - start) / 1_000_000);
                if (created.code() == 201 && read.code() == 200) {
                    otherAnswers.incrementAndGet();
                }
                ready.add(SystemStack.forDisruption().ready(Service.API));
            }
        } finally {
            stop.set(true);
            CompletableFuture.allOf(flood.toArray(CompletableFuture[]::new)).get();
            pool.shutdownNow();
        }
        System.out.printf(
                "front door flood: %d stranger uploads answered 401, %d 429 (throttled), %d cut before their body ended, %d unexpected,"
                        + " %d KiB of each 2,900 KiB body sent on average before the server closed;"
                        + " other org: %d creates+GETs answered, p50 %d ms, p99 %d ms, max %d ms; ready %d/%d%n",
                refused.get(),
                throttled.get(),
                closedEarly.get(),
                unexpected.size(),
                bodyBytesSent.get() / 1024 / Math.max(1, refused.get() + throttled.get() + closedEarly.get()),
                otherAnswers.get(),
                HostileLoad.percentile(latencies, 50),
                HostileLoad.percentile(latencies, 99),
                Collections.max(latencies),
                ready.stream().filter(r -> r).count(),
                ready.size());
        assertThat(unexpected)
                .as("a stranger's upload gets 401 (or 429) and nothing else")
                .isEmpty();
        assertThat(refused.get() + throttled.get())
                .as("stranger uploads answered before their body ended")
                .isGreaterThan(SOCKETS);
        assertThat(otherAnswers.get() * 2)
                .as("another org's creates and GETs, all answered")
                .isEqualTo(latencies.size());
        KeptService.assertKept("another org's creates and GETs", calm, latencies);
        assertThat(ready).as("api-service readiness during the flood").containsOnly(true);
        assertThat(SystemStack.forDisruption().ready(Service.API)).isTrue();
    }

    /** One stranger's upload: headers without a credential, then an unfinished chunked body, read at the same time. */
    private static void strangerUpload(
            ExecutorService pool,
            AtomicLong bodyBytesSent,
            AtomicInteger refused,
            AtomicInteger throttled,
            AtomicInteger closedEarly,
            List<String> unexpected) {
        try (RawHttp socket = RawHttp.connect(api)) {
            socket.send(RawHttp.chunkedPost(api, Api.POOLS, null));
            // A chunk each 5 ms, as fast as a client on a fast link; the server's answer ends it long before 2.9 MiB.
            CompletableFuture<Long> sending =
                    CompletableFuture.supplyAsync(() -> socket.sendUnfinishedBody(BODY, 5), pool);
            String answer = socket.readUntilClosed(10_000);
            bodyBytesSent.addAndGet(sending.get());
            if (answer.startsWith("HTTP/1.1 401") || answer.startsWith("HTTP/1.1 429")) {
                // 429: this address failed too often (the failed-authentication throttle), refused all the same.
                (answer.startsWith("HTTP/1.1 401") ? refused : throttled).incrementAndGet();
                if (!answer.contains("\"kind\":\"Status\"")
                        || !answer.toLowerCase().contains("connection: close")) {
                    unexpected.add(answer);
                }
            } else if (answer.isEmpty()) {
                closedEarly.incrementAndGet();
            } else {
                unexpected.add(answer.lines().findFirst().orElse(answer));
            }
        } catch (Exception e) {
            closedEarly.incrementAndGet();
        }
    }

    @Test
    void anOrgsUnfinishedUploadsAreHeldToItsInFlightBudgetAndAnotherOrgKeepsCreating() throws Exception {
        List<RawHttp> held = new ArrayList<>();
        try {
            // 12 MiB an org: four unfinished bodies of no declared length (3 MiB each, the most a body may be).
            for (int i = 0; i < 4; i++) {
                RawHttp socket = RawHttp.connect(api);
                socket.send(RawHttp.chunkedPost(api, Api.POOLS, "Bearer demo-token"));
                socket.send("10\r\n{\"apiVersion\":1}\r\n");
                held.add(socket);
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                try (RawHttp fifth = RawHttp.connect(api)) {
                    fifth.send(RawHttp.chunkedPost(api, Api.POOLS, "Bearer demo-token"));
                    String answer = fifth.readUntilClosed(10_000);
                    assertThat(answer).startsWith("HTTP/1.1 429");
                    assertThat(answer).contains("request bodies of org demo in flight");
                }
            });
            String name = "front-door-budget-" + UUID.randomUUID().toString().substring(0, 6);
            assertThat(other.post(Api.POOLS, pool(name)).code())
                    .as("another org's create while demo's budget is full")
                    .isEqualTo(201);
        } finally {
            for (RawHttp socket : held) {
                socket.close();
            }
        }
        Api demo = SystemStack.api(SystemStack.forDisruption(), "demo-token");
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() ->
                        assertThat(demo.get(Api.POOLS + "?limit=1").code()).isEqualTo(200));
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void aClientThatStopsInTheMiddleOfItsHeadersIsCutOff() throws Exception {
        Duration open = slowHeaders.get(120, TimeUnit.SECONDS);
        assertThat(open).as("the idle timeout (60 s), with room").isLessThan(Duration.ofSeconds(100));
        assertThat(SystemStack.forDisruption().ready(Service.API)).isTrue();
    }

    @Test
    void aTokenMintedForAnotherAudienceOrLivingTooLongIs401() {
        JwtKeys keys = SystemStack.forDisruption().jwtKeys();
        String billing =
                keys.sign("jwt-user", "identities-it", List.of(), Instant.now(), Duration.ofHours(1), "billing");
        Api.Answer wrongAudience = new Api(api, billing).get(Api.POOLS);
        assertThat(wrongAudience.code()).isEqualTo(401);
        assertThat(wrongAudience.text("/message")).isEqualTo("token audience not accepted");

        String month = keys.sign("jwt-user", "identities-it", List.of(), Instant.now(), Duration.ofDays(30));
        Api.Answer tooLong = new Api(api, month).get(Api.POOLS);
        assertThat(tooLong.code()).isEqualTo(401);
        assertThat(tooLong.text("/message")).startsWith("token lives longer than");

        String right = keys.sign("jwt-user", "identities-it", List.of(), Instant.now(), Duration.ofHours(1));
        assertThat(new Api(api, right).get(Api.POOLS).code()).isEqualTo(200);
    }

    @Test
    void healthIsOpenAndNamesNoOrgWhileMetricsAndOpenApiNeedAnOperator() throws Exception {
        for (Service service : List.of(Service.API, Service.QUOTA)) {
            URI base = SystemStack.forDisruption().url(service);
            for (String probe : List.of("/q/health", "/q/health/ready", "/q/health/live")) {
                HttpResponse<String> health = anonymous(base.resolve(probe), "GET");
                assertThat(health.statusCode()).as(service + probe).isEqualTo(200);
                assertThat(health.body()).as(service + probe).doesNotContain("demo", "other");
            }
            for (String named : List.of("/q/metrics", "/q/openapi")) {
                assertThat(anonymous(base.resolve(named), "GET").statusCode())
                        .as("anonymous " + service + named)
                        .isEqualTo(401);
                assertThat(new Api(base, "demo-token").get(named).code())
                        .as("a tenant's " + service + named)
                        .isEqualTo(403);
            }
            assertThat(Metrics.of(SystemStack.forDisruption(), service)).contains("jvm_memory_used_bytes");
        }
    }

    @Test
    void everyOperationTheApiDocumentsRefusesAStrangerAtOnce() throws Exception {
        Api.Answer document =
                SystemStack.admin(SystemStack.forDisruption(), Service.API).get("/q/openapi?format=json");
        assertThat(document.code()).isEqualTo(200);
        int checked = 0;
        for (Iterator<Map.Entry<String, JsonNode>> paths =
                        document.body().path("paths").fields();
                paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            String concrete = path.getKey().replaceAll("\\{[^}]+}", "front-door-x");
            for (Iterator<String> methods = path.getValue().fieldNames(); methods.hasNext(); ) {
                String method = methods.next().toUpperCase();
                if (!List.of("GET", "POST", "PUT", "PATCH", "DELETE").contains(method)) {
                    continue;
                }
                HttpResponse<String> answer = anonymous(api.resolve(concrete), method);
                assertThat(answer.statusCode()).as(method + " " + concrete).isEqualTo(401);
                assertThat(answer.body()).as(method + " " + concrete).contains("\"kind\":\"Status\"");
                checked++;
            }
        }
        System.out.printf("front door: %d documented operations each refused a stranger with 401%n", checked);
        assertThat(checked).isGreaterThan(20);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static HttpResponse<String> anonymous(URI uri, String method) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        if (List.of("POST", "PUT", "PATCH").contains(method)) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString("{}"));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String pool(String name) {
        return "{\"apiVersion\":\"compute.coreweave.com/v1alpha1\",\"kind\":\"NodePool\",\"metadata\":{\"name\":\""
                + name + "\"},\"spec\":{\"instanceType\":\"" + TYPE + "\",\"targetNodes\":0,\"region\":\"" + ZONE
                + "\"}}";
    }
}
