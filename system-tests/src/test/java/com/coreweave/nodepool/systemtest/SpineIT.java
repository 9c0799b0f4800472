package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 2's proof: one pool created through REST and one published straight to {@code nodepool-requested} go through
 * all five services over the real broker and reach the reference's "Healthy Node Pools" state; a deleted one is gone;
 * malformed requests are dead-lettered and the next good one is processed.
 */
@StackUse.Shares
class SpineIT {

    static final String ZONE = "US-EAST-04A";
    static final String TYPE = "gd-8xa100-i128";
    static TopicProbe kafka;
    static Api demo;

    @BeforeAll
    static void demoData() {
        kafka = new TopicProbe(SystemStack.get().bootstrapServers());
        demo = SystemStack.api("demo-token");
        SystemStack.quota("demo", ZONE, TYPE, 16);
        SystemStack.fleet(ZONE, TYPE, 24);
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    static String request(String id, String org, String name, int target) {
        NodePool pool = NodePool.of(
                ObjectMeta.named(name),
                new NodePoolSpec(null, TYPE, target, null, null, null, null, null, null, null, null, null, null, null),
                null);
        return Json.string(CloudEvent.of(
                id,
                "platform-team/ci",
                NodePoolRequested.TYPE,
                org + "/" + name,
                Instant.now(),
                new NodePoolRequested(NodePoolRequested.Operation.APPLY, pool)));
    }

    /** The pool as the reference's healthy example shows it, with {@code nodes} nodes. */
    static void assertHealthy(Api.Answer pool, int nodes) {
        assertThat(pool.code()).isEqualTo(200);
        assertThat(pool.number("/status/currentNodes"))
                .as("currentNodes of %s", pool.body())
                .isEqualTo(nodes);
        assertThat(pool.number("/status/inProgress")).isZero();
        assertThat(pool.number("/status/queuedNodes")).isZero();
        assertThat(reason(pool, "Validated")).isEqualTo("Valid/True");
        assertThat(reason(pool, "Capacity")).isEqualTo("Sufficient/True");
        assertThat(reason(pool, "Quota")).isEqualTo("Under/True");
        assertThat(reason(pool, "AtTarget")).isEqualTo("TargetMet/True");
        assertThat(reason(pool, "NodeReconfigurationRequired")).isEqualTo("AllNodesUpToDate/False");
    }

    static String reason(Api.Answer pool, String type) {
        JsonNode c = pool.condition(type);
        return c.path("reason").asText() + "/" + c.path("status").asText();
    }

    static List<String> eventReasons(String pool) {
        List<String> reasons = new ArrayList<>();
        demo.get(Api.POOLS + "/" + pool + "/events")
                .body()
                .path("items")
                .forEach(e -> reasons.add(e.path("reason").asText()));
        return reasons;
    }

    @Test
    void poolsFromRestAndFromTheTopicReachTheirTargetAndADeletedPoolIsGone() {
        assertThat(demo.post(Api.POOLS, Api.pool("spine-rest", TYPE, 2)).code()).isEqualTo(201);
        kafka.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/spine-topic",
                request("spine-1", "demo", "spine-topic", 2),
                Map.of());

        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    assertHealthy(demo.get(Api.POOLS + "/spine-rest"), 2);
                    assertHealthy(demo.get(Api.POOLS + "/spine-topic"), 2);
                });
        for (String pool : List.of("spine-rest", "spine-topic")) {
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(eventReasons(pool))
                            .contains("CWNodePoolCreated", "CWNodeAssigned", "CWNodeRegistered", "CWNodePoolScaledUp"));
            assertThat(demo.get(Api.POOLS + "/" + pool + "/nodes")
                            .body()
                            .path("items")
                            .size())
                    .isEqualTo(2);
        }

        assertThat(demo.delete(Api.POOLS + "/spine-rest").code()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() ->
                        assertThat(demo.get(Api.POOLS + "/spine-rest").code()).isEqualTo(404));
        kafka.awaitRecord(
                Topics.NODEPOOL_EVENTS.name(),
                r -> "demo/spine-rest".equals(r.key()) && r.value().contains("\"CWNodePoolDeleted\""),
                Duration.ofSeconds(20));
        kafka.awaitRecord(
                Topics.NODEPOOL_STATUS.name(),
                r -> "demo/spine-rest".equals(r.key()) && r.value() == null,
                Duration.ofSeconds(20));
    }

    @Test
    void malformedRequestsAreDeadLetteredAndTheNextGoodOneIsProcessed() {
        kafka.send(Topics.NODEPOOL_REQUESTED.name(), "demo/not-json", "this is not JSON", Map.of());
        kafka.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/wrong-shape",
                "{\"specversion\":\"1.0\",\"id\":\"x\"}",
                Map.of());
        kafka.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/after-garbage",
                request("spine-2", "demo", "after-garbage", 1),
                Map.of());

        var notJson = kafka.awaitRecord(
                Topics.NODEPOOL_REQUESTED_DLQ.name(), r -> "demo/not-json".equals(r.key()), Duration.ofSeconds(30));
        assertThat(notJson.header(DeadLetters.ERROR)).isEqualTo("MalformedJson");
        assertThat(notJson.value()).isEqualTo("this is not JSON");
        var wrongShape = kafka.awaitRecord(
                Topics.NODEPOOL_REQUESTED_DLQ.name(), r -> "demo/wrong-shape".equals(r.key()), Duration.ofSeconds(30));
        assertThat(wrongShape.header(DeadLetters.REASON)).contains("source");

        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertHealthy(demo.get(Api.POOLS + "/after-garbage"), 1));
    }
}
