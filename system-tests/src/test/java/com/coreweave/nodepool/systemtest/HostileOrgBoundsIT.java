package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Every per-org bound as a big or hostile tenant meets it, on a stack of its own (an api-service alone, with small
 * bounds for org demo so the test stays short): its pools stop at its byte quota while org other is answered, its lists
 * come in bounded pages, its stalled watches end while other's goes on, and the service restarted over the quota starts
 * and serves. Shared helpers live in {@link OrgBounds}.
 */
@StackUse.Own
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileOrgBoundsIT {

    /** Demo's storage quota here: 8 pools of 240 KB annotations (59 blocks of 4 KiB each), not a ninth. */
    private static final long DEMO_QUOTA = 2 * 1024 * 1024;

    private static final int ANNOTATION_BYTES = 240_000;
    private static final String TYPE = "gd-8xa100-i128";
    private static final String POOLS = Api.POOLS;
    /** The server's bound on one page's objects (nodepool.api.list.max-bytes), and room for the list around them. */
    private static final int PAGE_BYTES = 1024 * 1024 + 64 * 1024;

    private static Stack stack;
    private static URI base;
    private static Api demo;
    private static Api other;
    private static final List<String> demoPools = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        stack = Stack.builder()
                .withServices(Service.API)
                .withProperty(Service.API, "nodepool.api.pool-storage-quota-per-org.demo", String.valueOf(DEMO_QUOTA))
                // One watch may hold 1 MiB, an org's watches 2 MiB, all of them 3 MiB: demo's four stalled watches
                // could take all three without the org's share.
                .withProperty(Service.API, "nodepool.api.watch.buffer-bytes", "1048576")
                .withProperty(Service.API, "nodepool.api.watch.buffers-per-org-bytes", "2097152")
                .withProperty(Service.API, "nodepool.api.watch.buffers-total-bytes", "3145728")
                .build()
                .start();
        base = stack.url(Service.API);
        demo = new Api(base, "demo-token");
        other = new Api(base, "other-token");
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void anOrgCreatingMaximumSizePoolsIsStoppedAtItsByteQuotaWhileAnotherOrgIsAnswered() throws Exception {
        // A fresh service's first calls are slow to compile, whatever any other org does: warmed before measuring.
        // The last ten are its latency before the attack, on this machine as busy as it is now.
        OrgBounds.Latencies warming = new OrgBounds.Latencies();
        OrgBounds.Latencies calm = new OrgBounds.Latencies();
        for (int i = 0; i < 20; i++) {
            String name = "other-warm-" + i;
            OrgBounds.Latencies timed = i < 10 ? warming : calm;
            assertThat(timed.time(() -> other.post(POOLS, Api.pool(name, TYPE, 0)))
                            .code())
                    .isEqualTo(201);
            assertThat(timed.time(() -> other.get(POOLS + "/" + name)).code()).isEqualTo(200);
        }
        OrgBounds.Latencies others = new OrgBounds.Latencies();
        AtomicBoolean flooding = new AtomicBoolean(true);
        List<Integer> otherFailures = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> otherOrg = CompletableFuture.runAsync(() -> {
            for (int i = 0; flooding.get() && i < 500; i++) {
                String name = "other-during-" + i;
                int created = others.time(() -> other.post(POOLS, Api.pool(name, TYPE, 0)))
                        .code();
                int read = others.time(() -> other.get(POOLS + "/" + name)).code();
                if (created != 201 || read != 200) {
                    otherFailures.add(created * 1000 + read);
                }
            }
        });
        // Two at a time, as a tenant's pipeline would: 40 creates of about 240 KB each, most past the quota.
        AtomicInteger next = new AtomicInteger();
        List<Api.Answer> refusals = new CopyOnWriteArrayList<>();
        Runnable creator = () -> {
            for (int i = next.getAndIncrement(); i < 40; i = next.getAndIncrement()) {
                String name = "big-" + i;
                Api.Answer answer = demo.post(POOLS, OrgBounds.annotatedPool(name, TYPE, ANNOTATION_BYTES));
                if (answer.code() == 201) {
                    demoPools.add(name);
                } else {
                    refusals.add(answer);
                }
            }
        };
        CompletableFuture.allOf(CompletableFuture.runAsync(creator), CompletableFuture.runAsync(creator))
                .join();
        flooding.set(false);
        otherOrg.join();

        System.out.printf(
                "HostileOrgBoundsIT: demo stored %d pools of %d B annotations, refused %d; other's %d creates and GETs"
                        + " meanwhile: p50 %d ms, p99 %d ms, max %d ms%n",
                demoPools.size(),
                ANNOTATION_BYTES,
                refusals.size(),
                others.count(),
                others.percentile(50),
                others.percentile(99),
                others.percentile(100));
        // 8 fit; creates in two partitions at once may each see the other's bytes a commit late (one pool each).
        assertThat(demoPools.size()).isBetween(8, 10);
        assertThat(refusals).isNotEmpty().allSatisfy(refused -> {
            assertThat(refused.code()).isEqualTo(403);
            assertThat(refused.text("/reason")).isEqualTo("Forbidden");
            assertThat(refused.text("/message"))
                    .contains("exceeded quota: storage/nodepools.compute.coreweave.com", "limited: " + DEMO_QUOTA);
        });
        assertThat(otherFailures)
                .as("other's creates and GETs (code*1000+code)")
                .isEmpty();
        assertThat(others.count()).isGreaterThan(10);
        KeptService.assertKept("other's creates and GETs", calm.all(), others.all());
        // Still refused once every count has arrived; a small pool that fits no block either.
        assertThat(demo.post(POOLS, OrgBounds.annotatedPool("big-after", TYPE, ANNOTATION_BYTES))
                        .code())
                .isEqualTo(403);
        assertThat(other.post(POOLS, OrgBounds.annotatedPool("other-big", TYPE, ANNOTATION_BYTES))
                        .code())
                .as("another org's own quota")
                .isEqualTo(201);
    }

    @Test
    @Order(2)
    void listsOfLargePoolsComeInBoundedPagesThatKubectlAndTheDashboardFollow() {
        for (String accept : List.of("application/json", "application/json;as=Table;v=v1;g=meta.k8s.io")) {
            Set<String> seen = new HashSet<>();
            String cont = null;
            int pages = 0;
            do {
                String path = POOLS + "?limit=500" + (cont == null ? "" : "&continue=" + encode(cont));
                OrgBounds.Raw page = OrgBounds.get(base, "demo-token", path, accept);
                assertThat(page.code()).isEqualTo(200);
                assertThat(page.body().length).as("one page's bytes").isLessThanOrEqualTo(PAGE_BYTES);
                JsonNode list = Json.read(page.text(), JsonNode.class);
                JsonNode rows = list.has("rows") ? list.get("rows") : list.get("items");
                rows.forEach(row -> seen.add(row.at(list.has("rows") ? "/object/metadata/name" : "/metadata/name")
                        .asText()));
                cont = list.at("/metadata/continue").asText(null);
                cont = cont == null || cont.isEmpty() ? null : cont;
                pages++;
            } while (cont != null && pages < 20);
            System.out.printf("HostileOrgBoundsIT: %s list of %d pools in %d pages%n", accept, seen.size(), pages);
            assertThat(seen).containsExactlyInAnyOrderElementsOf(demoPools);
            assertThat(pages)
                    .as("1.9 MB of pools cannot come in one 1 MiB page")
                    .isGreaterThan(1);
        }
        // A list without limit is a page too; its continue token is demo's alone, and cannot be altered.
        OrgBounds.Raw first = OrgBounds.get(base, "demo-token", POOLS, "application/json");
        String token =
                Json.read(first.text(), JsonNode.class).at("/metadata/continue").asText();
        assertThat(token).isNotEmpty();
        OrgBounds.Raw othersTry = OrgBounds.get(base, "other-token", POOLS + "?continue=" + encode(token), "*/*");
        assertThat(othersTry.code()).isEqualTo(400);
        assertThat(othersTry.text()).doesNotContain("big-");
        String altered = (token.charAt(0) == 'A' ? 'B' : 'A') + token.substring(1);
        assertThat(OrgBounds.get(base, "demo-token", POOLS + "?continue=" + encode(altered), "*/*")
                        .code())
                .isEqualTo(400);
        // Events and nodes are paged alike.
        for (String path : List.of("/api/v1/events?limit=5000", "/api/v1/nodes?limit=5000")) {
            OrgBounds.Raw page = OrgBounds.get(base, "demo-token", path, "application/json");
            assertThat(page.code()).as(path).isEqualTo(200);
            assertThat(page.body().length).as(path).isLessThanOrEqualTo(PAGE_BYTES);
        }
    }

    @Test
    @Order(3)
    void stalledWatchesOfOneOrgEndOnlyThatOrgsWatches() throws Exception {
        List<String> othersLines = new CopyOnWriteArrayList<>();
        HttpClient http = HttpClient.newHttpClient();
        CompletableFuture<?> othersWatch = http.sendAsync(
                        HttpRequest.newBuilder(base.resolve(POOLS + "?watch=true"))
                                .header("Authorization", "Bearer other-token")
                                .build(),
                        HttpResponse.BodyHandlers.ofLines())
                .thenAccept(response -> response.body().forEach(othersLines::add));
        List<OrgBounds.StalledWatch> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                stalled.add(new OrgBounds.StalledWatch(base, "demo-token", POOLS + "?watch=true"));
            }
            // Each watch starts with demo's 1.9 MB of pools; every label change sends a 240 KB pool to each again.
            for (int i = 0; i < 30; i++) {
                String pool = demoPools.get(i % demoPools.size());
                assertThat(demo.patch(POOLS + "/" + pool, "{\"metadata\":{\"labels\":{\"round\":\"" + i + "\"}}}")
                                .code())
                        .isEqualTo(200);
            }
            int ended = 0;
            for (OrgBounds.StalledWatch watch : stalled) {
                if (watch.readUntil("\"reason\":\"Expired\"", Duration.ofSeconds(20))
                        .contains("\"reason\":\"Expired\"")) {
                    ended++;
                }
            }
            assertThat(other.post(POOLS, Api.pool("other-after-stall", TYPE, 0)).code())
                    .isEqualTo(201);
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(
                            () -> assertThat(othersLines).anyMatch(line -> line.contains("\"other-after-stall\"")));
            System.out.printf(
                    "HostileOrgBoundsIT: %d of 4 stalled watches of demo ended with 410; other's watch got %d events%n",
                    ended, othersLines.size());
            assertThat(ended).as("demo's stalled watches that ended with 410").isPositive();
            assertThat(othersLines).noneMatch(line -> line.contains("\"code\":410"));
            assertThat(othersWatch).isNotDone();
        } finally {
            for (OrgBounds.StalledWatch watch : stalled) {
                watch.close();
            }
            othersWatch.cancel(true);
        }
    }

    @Test
    @Order(4)
    void aServiceRestartedOnPoolsOverItsNewQuotaStartsAndServes() {
        // An operator halves demo's quota: demo's pools, stored before, are now over it.
        long halved = DEMO_QUOTA / 2;
        long began = System.nanoTime();
        stack.restart(Service.API, Map.of("nodepool.api.pool-storage-quota-per-org.demo", String.valueOf(halved)));
        System.out.printf(
                "HostileOrgBoundsIT: the api-service restarted on %d pools of 240 KB in %d ms%n",
                demoPools.size(), (System.nanoTime() - began) / 1_000_000);

        String pool = demoPools.get(0);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(demo.get(POOLS + "/" + pool).code()).isEqualTo(200));
        Api.Answer refused = demo.post(POOLS, Api.pool("small-after-restart", TYPE, 0));
        assertThat(refused.code()).isEqualTo(403);
        assertThat(refused.text("/message")).contains("storage/nodepools", "limited: " + halved);
        // Shrinking a pool is taken, over the quota or not; other is not held to demo's quota.
        assertThat(demo.put(POOLS + "/" + pool, Api.pool(pool, TYPE, 0)).code()).isEqualTo(200);
        assertThat(other.post(POOLS, Api.pool("other-after-restart", TYPE, 0)).code())
                .isEqualTo(201);
        assertThat(OrgBounds.get(base, "demo-token", POOLS + "?limit=500", "application/json")
                        .code())
                .isEqualTo(200);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
