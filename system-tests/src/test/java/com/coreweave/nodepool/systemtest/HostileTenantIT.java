package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, tried as a hostile tenant would, against the whole stack: org {@code other} reaching for org {@code demo}'s
 * pools through every read path (a forged list position, another org's continue token, the reads between instances),
 * two orgs racing with one {@code Idempotency-Key}, a JSON patch that copies itself into gigabytes, a body of 4 MiB,
 * 10,000 bad taints on REST and on the topic, and a watch whose client never reads while a thousand changes happen.
 * Each must be refused or bounded, and the API must stay ready for everyone. (A record too large to write, on a stack
 * of its own, is {@link RecordTooLargeIT}'s.)
 */
@StackUse.Disrupts
class HostileTenantIT {

    private static final String TYPE = "gd-8xa100-i128";
    private static final Api DEMO = SystemStack.api(SystemStack.forDisruption(), "demo-token");
    private static final Api OTHER = SystemStack.api(SystemStack.forDisruption(), "other-token");
    private static final Api ADMIN = SystemStack.api(SystemStack.forDisruption(), "admin-token");
    private static final ExecutorService RACERS = Executors.newFixedThreadPool(4);

    @BeforeAll
    static void pools() {
        for (int i = 0; i < 3; i++) {
            created(DEMO, "hostile-demo-" + i);
        }
        created(OTHER, "hostile-other-0");
    }

    @AfterAll
    static void stop() {
        RACERS.shutdownNow();
    }

    private static void created(Api api, String name) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            int code = api.post(Api.POOLS, Api.pool(name, TYPE, 0)).code();
            return code == 201 || code == 409;
        });
    }

    @Test
    void aForgedOrAnotherOrgsListPositionShowsNoForeignPool() {
        String version = OTHER.get(Api.POOLS + "?limit=1").text("/metadata/resourceVersion");
        // The attack: base64url("<rv of a real list>\n0"), which sorts before every org.
        String forged = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString((version + "\n0").getBytes(StandardCharsets.UTF_8));
        var refused = OTHER.get(Api.POOLS + "?limit=500&continue=" + forged);
        assertThat(refused.code()).isEqualTo(400);
        assertThat(refused.text("/kind")).isEqualTo("Status");
        assertThat(refused.body().toString()).doesNotContain("hostile-demo");

        String demos = DEMO.get(Api.POOLS + "?limit=1").text("/metadata/continue");
        assertThat(demos)
                .as("demo has more than one pool, so its first page continues")
                .isNotBlank();
        var stolen = OTHER.get(Api.POOLS + "?limit=500&continue=" + URLEncoder.encode(demos, StandardCharsets.UTF_8));
        assertThat(stolen.code()).isEqualTo(400);
        assertThat(stolen.text("/message")).contains("another caller's list");

        // The whole list, paged as kubectl pages it: other's own pools only.
        assertThat(names(OTHER.get(Api.POOLS + "?limit=1"))).allMatch(n -> !n.startsWith("hostile-demo"));
        List<String> everyPage = new ArrayList<>();
        String next = "";
        do {
            var page = OTHER.get(Api.POOLS + "?limit=1"
                    + (next.isEmpty() ? "" : "&continue=" + URLEncoder.encode(next, StandardCharsets.UTF_8)));
            assertThat(page.code()).isEqualTo(200);
            everyPage.addAll(names(page));
            next = page.body().at("/metadata/continue").asText("");
        } while (!next.isEmpty());
        assertThat(everyPage).contains("hostile-other-0").noneMatch(n -> n.startsWith("hostile-demo"));
        assertThat(names(ADMIN.get(Api.POOLS)))
                .as("an operator reads every org")
                .contains("hostile-demo-0", "hostile-other-0");
    }

    @Test
    void theReadsBetweenInstancesAreTheCallersOwnToo() {
        // What one instance asks another, asked directly with other's token for demo's pools and from before every org.
        var page = OTHER.get("/internal/pool-published?org=other&after=0&limit=100");
        assertThat(page.code()).isEqualTo(200);
        page.body().fieldNames().forEachRemaining(key -> assertThat(key).startsWith("other/"));
        assertThat(page.body().toString()).doesNotContain("hostile-demo");
        assertThat(OTHER.get("/internal/pool-published?org=demo&limit=100").code())
                .isEqualTo(404);
        assertThat(OTHER.get("/internal/pool-published?limit=100").code()).isEqualTo(404);
        assertThat(OTHER.get("/internal/pool-published/demo/hostile-demo-0").code())
                .isEqualTo(404);
        assertThat(OTHER.get("/internal/pool-views/demo/hostile-demo-0").code()).isEqualTo(404);
        assertThat(OTHER.get("/internal/pool-events/demo/hostile-demo-0").code())
                .isEqualTo(404);
        assertThat(OTHER.get("/internal/pool-parts/demo/hostile-demo-0").code()).isEqualTo(404);
        assertThat(OTHER.get("/internal/pool-nodes?org=demo").code()).isEqualTo(404);
        var events = OTHER.get("/api/v1/events");
        assertThat(events.code()).isEqualTo(200);
        assertThat(events.body().toString()).doesNotContain("hostile-demo");
        assertThat(OTHER.get(Api.POOLS + "/hostile-demo-0").code()).isEqualTo(404);
        assertThat(OTHER.get(Api.POOLS + "/hostile-demo-0/events").code()).isEqualTo(404);
        assertThat(OTHER.get(Api.POOLS + "/hostile-demo-0/nodes").code()).isEqualTo(404);
        assertThat(OTHER.get("/dashboard/api/nodepools").code())
                .as("every org's pools are an operator's")
                .isEqualTo(403);
    }

    @Test
    void theSameIdempotencyKeyFromTwoOrgsAtOnceGivesEachItsOwnPool() throws Exception {
        for (int round = 0; round < 8; round++) {
            String key = UUID.randomUUID().toString();
            String demoPool = "idem-demo-" + round;
            String otherPool = "idem-other-" + round;
            var demoAnswer =
                    CompletableFuture.supplyAsync(() -> DEMO.post(Api.POOLS, Api.pool(demoPool, TYPE, 0), key), RACERS);
            var otherAnswer = CompletableFuture.supplyAsync(
                    () -> OTHER.post(Api.POOLS, Api.pool(otherPool, TYPE, 0), key), RACERS);
            assertThat(demoAnswer.get().code()).isEqualTo(201);
            assertThat(otherAnswer.get().code()).isEqualTo(201);
            assertThat(demoAnswer.get().text("/metadata/name"))
                    .as("round %d", round)
                    .isEqualTo(demoPool);
            assertThat(otherAnswer.get().text("/metadata/name"))
                    .as("round %d", round)
                    .isEqualTo(otherPool);
            // And the key still does what it is for: a retry gets the first answer.
            var retry = DEMO.post(Api.POOLS, Api.pool(demoPool, TYPE, 0), key);
            assertThat(retry.text("/metadata/uid")).isEqualTo(demoAnswer.get().text("/metadata/uid"));
        }
    }

    @Test
    void aJsonPatchBombIsRefusedAt422FastAndTheApiStaysReady() {
        String path = Api.POOLS + "/hostile-demo-0";
        ArrayNode bomb = Json.mapper().createArrayNode();
        bomb.addObject()
                .put("op", "add")
                .put("path", "/metadata/annotations")
                .set("value", Json.mapper().createObjectNode().put("a", "x".repeat(60_000)));
        for (int i = 0; i < 30; i++) {
            bomb.addObject()
                    .put("op", "copy")
                    .put("from", "/metadata/annotations")
                    .put("path", "/metadata/annotations/x" + i);
        }
        DEMO.send("PATCH", path, "application/json-patch+json", bomb.toString());
        long started = System.nanoTime();
        var refused = DEMO.send("PATCH", path, "application/json-patch+json", bomb.toString());
        long millis = (System.nanoTime() - started) / 1_000_000;

        assertThat(refused.code()).isEqualTo(422);
        assertThat(refused.text("/kind")).isEqualTo("Status");
        // Expanded, thirty doublings of the annotations would take the heap and minutes; refused, it is a parse.
        assertThat(millis).as("answered in %d ms", millis).isLessThan(2_000);
        assertThat(SystemStack.forDisruption().ready(Service.API)).isTrue();
        assertThat(DEMO.get(path).code()).isEqualTo(200);
    }

    @Test
    void aBodyOfFourMebibytesIs413WithAStatus() {
        String huge = "{\"apiVersion\":\"compute.coreweave.com/v1alpha1\",\"kind\":\"NodePool\",\"metadata\":{\"name\":"
                + "\"huge\",\"annotations\":{\"a\":\"" + "x".repeat(4 * 1024 * 1024) + "\"}}}";
        var refused = DEMO.post(Api.POOLS, huge);
        assertThat(refused.code()).isEqualTo(413);
        assertThat(refused.text("/kind")).isEqualTo("Status");
        assertThat(refused.number("/code")).isEqualTo(413);
        assertThat(SystemStack.forDisruption().ready(Service.API)).isTrue();
    }

    @Test
    void tenThousandBadTaintsAreRefusedQuicklyWithBoundedCausesOnRestAndDeadLetteredOnTheTopic() {
        ObjectNode manifest = (ObjectNode) Json.read(Api.pool("hostile-taints", TYPE, 0), JsonNode.class);
        ArrayNode taints = ((ObjectNode) manifest.get("spec")).putArray("nodeTaints");
        for (int i = 0; i < 10_000; i++) {
            taints.addObject().put("key", "bad key " + i).put("value", "v").put("effect", "Sometimes");
        }
        long started = System.nanoTime();
        var refused = DEMO.post(Api.POOLS, manifest.toString());
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertThat(refused.code()).isEqualTo(422);
        assertThat(refused.body().at("/details/causes").size()).isLessThanOrEqualTo(Limits.MAX_CAUSES + 1);
        assertThat(refused.body().at("/details/causes").toString()).contains("more");
        assertThat(millis).as("answered in %d ms", millis).isLessThan(2_000);

        // The same on the topic, then a good request on the same key's partition: the first is dead-lettered with a
        // reason that fits a header, the second is decided.
        try (TopicProbe kafka = new TopicProbe(SystemStack.forDisruption().bootstrapServers())) {
            kafka.send(
                    "nodepool-requested",
                    "demo/hostile-taints",
                    cloudEvent("taints-" + UUID.randomUUID(), "demo/hostile-taints", manifest),
                    Map.of());
            kafka.send(
                    "nodepool-requested",
                    "demo/hostile-taints",
                    cloudEvent("good-" + UUID.randomUUID(), "demo/hostile-taints", (ObjectNode)
                            Json.read(Api.pool("hostile-taints", TYPE, 0), JsonNode.class)),
                    Map.of());
            var dead = kafka.awaitRecord(
                    "nodepool-requested-dlq", r -> "demo/hostile-taints".equals(r.key()), Duration.ofSeconds(60));
            String reason = dead.header(DeadLetters.REASON);
            assertThat(reason.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(Limits.MAX_DLQ_REASON_BYTES);
            assertThat(reason).contains("more");
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> DEMO.get(Api.POOLS + "/hostile-taints").code() == 200);
    }

    @Test
    void aWatchWhoseClientNeverReadsIsClosedWithGoneWhileTheApiStaysReady() throws Exception {
        created(DEMO, "hostile-watch");
        // Each change of this pool is a watch event of some 200 KB (near the 256 KiB annotations may have): 80 of them
        // (16 MB) are twice what a connection's buffers (at most 4 MiB on loopback) and the watch's own (4 MiB) hold.
        DEMO.patch(
                Api.POOLS + "/hostile-watch",
                "{\"metadata\":{\"annotations\":{\"bulk\":\"" + "x".repeat(200_000) + "\"}}}");
        URI api = SystemStack.forDisruption().url(Service.API);
        try (Socket stalled = new Socket()) {
            stalled.setReceiveBufferSize(4096);
            stalled.connect(new InetSocketAddress(api.getHost(), api.getPort()), 5_000);
            stalled.getOutputStream()
                    .write(("GET " + Api.POOLS + "?watch=true HTTP/1.1\r\nHost: " + api.getHost()
                                    + "\r\nAuthorization: Bearer demo-token\r\nAccept: application/json\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            stalled.getOutputStream().flush();

            // 80 changes the watch must carry, each its own status: four writers of labels at once.
            List<CompletableFuture<Void>> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int writer = w;
                writers.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < 20; i++) {
                                DEMO.patch(
                                        Api.POOLS + "/hostile-watch",
                                        "{\"metadata\":{\"labels\":{\"w" + writer + "\":\"" + i + "\"}}}");
                            }
                        },
                        RACERS));
            }
            CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get();
            assertThat(SystemStack.forDisruption().ready(Service.API)).isTrue();

            // Only now the client reads: what the connection held, then the server's last word and the end of the
            // response (the last, empty chunk).
            stalled.setSoTimeout(60_000);
            String read = readUntil(
                    stalled.getInputStream(), text -> text.contains("\"code\":410") && text.endsWith("0\r\n\r\n"));
            assertThat(read).contains("\"type\":\"ERROR\"");
        }
        String metrics = Metrics.of(SystemStack.forDisruption(), Service.API);
        assertThat(gauge(metrics, "nodepool_watches_buffered_bytes"))
                .as("what watches hold for their clients")
                .isLessThan(64 * 1024 * 1024);
        assertThat(SystemStack.forDisruption().ready(Service.API)).isTrue();
        assertThat(DEMO.get(Api.POOLS + "/hostile-watch").code()).isEqualTo(200);
    }

    /**
     * Reads until {@code done} holds for the last few KB read (or the socket's timeout fails the test), and returns
     * them: the end of a long response is where a watch says why it ends.
     */
    private static String readUntil(InputStream in, Predicate<String> done) throws IOException {
        StringBuilder tail = new StringBuilder();
        byte[] chunk = new byte[64 * 1024];
        for (int n; (n = in.read(chunk)) >= 0; ) {
            tail.append(new String(chunk, 0, n, StandardCharsets.ISO_8859_1));
            if (tail.length() > 16 * 1024) {
                tail.delete(0, tail.length() - 16 * 1024);
            }
            if (done.test(tail.toString())) {
                break;
            }
        }
        return tail.toString();
    }

    /** A gauge's value in a Prometheus scrape. */
    private static double gauge(String scrape, String name) {
        return scrape.lines()
                .filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in /q/metrics"));
    }

    /**
     * Big pools are normal: a pool of 5,000 nodes (the most one pool may ask for) reaches its target, and while its
     * nodes are on their way another org's 20 one-node pools reach theirs too; then they all go.
     */
    @Test
    void aPoolOfFiveThousandNodesReachesItsTargetWhileAnotherOrgsSmallPoolsReachTheirs() {
        String zone = "US-EAST-08A";
        String type = "cd-hp-a96-genoa";
        SystemStack.quota(SystemStack.forDisruption(), "demo", zone, type, Limits.MAX_TARGET_NODES);
        SystemStack.quota(SystemStack.forDisruption(), "other", zone, type, 20);
        SystemStack.fleet(SystemStack.forDisruption(), zone, type, Limits.MAX_TARGET_NODES + 20);
        assertThat(DEMO.post(Api.POOLS, Api.pool("hostile-big", type, zone, Limits.MAX_TARGET_NODES))
                        .code())
                .isEqualTo(201);
        List<String> small = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            small.add("hostile-small-" + i);
            assertThat(OTHER.post(Api.POOLS, Api.pool(small.get(i), type, zone, 1))
                            .code())
                    .isEqualTo(201);
        }
        small.forEach(name -> OTHER.awaitTargetMet(name, Duration.ofSeconds(180)));
        DEMO.awaitTargetMet("hostile-big", Duration.ofMinutes(10));
        assertThat(DEMO.get(Api.POOLS + "/hostile-big").number("/status/currentNodes"))
                .isEqualTo(Limits.MAX_TARGET_NODES);

        DEMO.delete(Api.POOLS + "/hostile-big");
        small.forEach(name -> OTHER.delete(Api.POOLS + "/" + name));
        await().atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> DEMO.get(Api.POOLS + "/hostile-big").code() == 404);
    }

    private static List<String> names(Api.Answer list) {
        List<String> names = new ArrayList<>();
        list.body().path("items").forEach(p -> names.add(p.at("/metadata/name").asText()));
        return names;
    }

    private static String cloudEvent(String id, String subject, ObjectNode nodePool) {
        ObjectNode event = Json.mapper().createObjectNode();
        event.put("specversion", "1.0")
                .put("id", id)
                .put("source", "hostile-tenant-it")
                .put("type", "NodePoolRequested")
                .put("subject", subject)
                .put("time", Instant.now().toString())
                .put("datacontenttype", "application/json");
        event.putObject("data").put("operation", "APPLY").set("nodePool", nodePool);
        return event.toString();
    }
}
