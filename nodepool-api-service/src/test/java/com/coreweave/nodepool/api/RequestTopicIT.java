package com.coreweave.nodepool.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Requests published straight to {@code nodepool-requested}, against the real broker. */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class RequestTopicIT {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools/";
    static TopicProbe probe;

    @BeforeAll
    static void catalogue() {
        probe = Facts.probeWithCatalogue();
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    static String request(String id, String key, String name, int target) {
        return request(id, key, name, "gd-8xa100-i128", target);
    }

    static String request(String id, String key, String name, String type, int target) {
        NodePool pool = NodePool.of(
                ObjectMeta.named(name),
                new NodePoolSpec(null, type, target, null, null, null, null, null, null, null, null, null, null, null),
                null);
        return Json.string(CloudEvent.of(
                id,
                "team-ci",
                NodePoolRequested.TYPE,
                key,
                Instant.now(),
                new NodePoolRequested(NodePoolRequested.Operation.APPLY, pool)));
    }

    @Test
    void aRepeatedCloudEventIdChangesNothing() {
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/repeat-pool",
                request("r-1", "demo/repeat-pool", "repeat-pool", 1));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "repeat-pool")
                        .then()
                        .statusCode(200));

        // The same id again, even with another target, is a redelivery: a no-op. A new id then applies.
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/repeat-pool",
                request("r-1", "demo/repeat-pool", "repeat-pool", 5));
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/repeat-pool",
                request("r-2", "demo/repeat-pool", "repeat-pool", 2));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "repeat-pool")
                        .then()
                        .body("spec.targetNodes", equalTo(2))
                        .body("metadata.generation", equalTo(2)));
        var decided = probe.readUntil(
                Topics.NODEPOOL_REQUEST_DECIDED.name(),
                r -> r.stream().filter(d -> "demo/repeat-pool".equals(d.key())).count() >= 3,
                Duration.ofSeconds(10));
        assertThat(decided.stream()
                        .filter(d ->
                                "demo/repeat-pool".equals(d.key()) && d.value().contains("\"r-1\""))
                        .map(d -> d.value().contains("\"targetNodes\":1")))
                .containsOnly(true);
    }

    @Test
    void aTopicRequestThatBreaksAResourceRuleIsDeadLetteredWithItsReason() {
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/immutable-pool",
                request("i-1", "demo/immutable-pool", "immutable-pool", 1));
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/immutable-pool",
                request("i-2", "demo/immutable-pool", "immutable-pool", "gd-8xh100ib-i128", 1));
        var dead = probe.readUntil(
                Topics.NODEPOOL_REQUESTED_DLQ.name(),
                r -> r.stream().anyMatch(d -> "demo/immutable-pool".equals(d.key())),
                Duration.ofSeconds(30));
        var refused = dead.stream()
                .filter(d -> "demo/immutable-pool".equals(d.key()))
                .findFirst()
                .orElseThrow();
        assertThat(refused.headers()).containsEntry(DeadLetters.ERROR, "Invalid");
        assertThat(refused.headers().get(DeadLetters.REASON))
                .contains("spec.instanceType")
                .contains("immutable");
        assertThat(refused.value()).contains("\"id\":\"i-2\"");
        given().auth()
                .oauth2("demo-token")
                .get(POOLS + "immutable-pool")
                .then()
                .statusCode(200)
                .body("spec.instanceType", equalTo("gd-8xa100-i128"));
    }

    @Test
    void malformedRecordsGoToTheDeadLetterTopicAndTheNextGoodOneIsProcessed() {
        probe.send(Topics.NODEPOOL_REQUESTED.name(), "demo/bad-json", "{not json");
        probe.send(Topics.NODEPOOL_REQUESTED.name(), "demo/wrong-shape", "{\"specversion\":\"1.0\",\"hello\":1}");
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/topic-pool",
                request("e-1", "demo/topic-pool", "topic-pool", 1));

        var dead = probe.readUntil(
                Topics.NODEPOOL_REQUESTED_DLQ.name(),
                r -> r.stream()
                                .filter(d -> d.key().equals("demo/bad-json")
                                        || d.key().equals("demo/wrong-shape"))
                                .count()
                        == 2,
                Duration.ofSeconds(30));
        var badJson = dead.stream()
                .filter(d -> d.key().equals("demo/bad-json"))
                .findFirst()
                .orElseThrow();
        assertThat(badJson.value()).isEqualTo("{not json");
        assertThat(badJson.headers())
                .containsEntry(DeadLetters.ERROR, "MalformedJson")
                .containsKey(DeadLetters.REASON);
        var wrongShape = dead.stream()
                .filter(d -> d.key().equals("demo/wrong-shape"))
                .findFirst()
                .orElseThrow();
        assertThat(wrongShape.headers().get(DeadLetters.REASON)).contains("id is required");

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "topic-pool")
                        .then()
                        .log()
                        .ifValidationFails()
                        .statusCode(200)
                        .body("spec.targetNodes", equalTo(1))
                        .body("status.conditions.find { it.type == 'Validated' }.reason", equalTo("Valid")));
    }

    @Test
    void anUnreadableCatalogueRecordIsSkippedAndTheTypeItWouldHaveReplacedStaysKnown() {
        probe.send(Topics.INSTANCE_TYPE_CATALOGUED.name(), "gd-8xa100-i128", "{not json");
        probe.send(Topics.INSTANCE_TYPE_CATALOGUED.name(), "gd-8xa100-i128", "[\"wrong shape\"]");
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/after-bad-catalogue",
                request("c-1", "demo/after-bad-catalogue", "after-bad-catalogue", 1));

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "after-bad-catalogue")
                        .then()
                        .statusCode(200)
                        .body("status.conditions.find { it.type == 'Validated' }.reason", equalTo("Valid")));
    }

    /**
     * Issue 27: an org's own topic, created while the service runs (found at the consumer's next metadata refresh, at
     * most 30 s), creates that org's pools from any partition, and a record for another org is refused as Forbidden.
     */
    @Test
    void anOrgsTopicCreatedWhileRunningCreatesItsPoolsAndNoOtherOrgs() throws Exception {
        String topic = TenantTopics.of(Topics.NODEPOOL_REQUESTED, "demo");
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaResource.bootstrapServers()))) {
            // Fewer partitions than the shared topic: an org topic's partitions say nothing of the key's.
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        }
        probe.sendToPartition(topic, 1, "other/tenant-pool", request("t-2", "other/tenant-pool", "tenant-pool", 1));
        probe.sendToPartition(topic, 1, "demo/tenant-pool", request("t-1", "demo/tenant-pool", "tenant-pool", 2));

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "tenant-pool")
                        .then()
                        .statusCode(200)
                        .body("spec.targetNodes", equalTo(2)));
        TopicProbe.Read refused = probe.awaitRecord(
                Topics.NODEPOOL_REQUESTED_DLQ.name(), r -> "other/tenant-pool".equals(r.key()), Duration.ofSeconds(30));
        assertThat(refused.header(DeadLetters.ERROR)).isEqualTo("Forbidden");
        given().auth().oauth2("other-token").get(POOLS + "tenant-pool").then().statusCode(404);
    }

    @Test
    void requestsOnAnyPartitionReachTheirPoolAndADeleteOnAnotherOneIsCarriedOut() {
        // kcat and librdkafka clients hash keys with CRC32, some clients pick a partition: every one must work.
        for (int partition = 0; partition < 3; partition++) {
            String name = "placed-" + partition;
            probe.sendToPartition(
                    Topics.NODEPOOL_REQUESTED.name(),
                    partition,
                    "demo/" + name,
                    request("p-" + partition, "demo/" + name, name, 1));
        }
        for (int partition = 0; partition < 3; partition++) {
            String name = "placed-" + partition;
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> given().auth()
                            .oauth2("demo-token")
                            .get(POOLS + name)
                            .then()
                            .statusCode(200)
                            .body("spec.targetNodes", equalTo(1)));
        }
        String update = request("p-update", "demo/placed-1", "placed-1", 3);
        String delete = update.replace("\"APPLY\"", "\"DELETE\"").replace("p-update", "p-delete");
        probe.sendToPartition(Topics.NODEPOOL_REQUESTED.name(), 2, "demo/placed-1", update);
        probe.sendToPartition(Topics.NODEPOOL_REQUESTED.name(), 2, "demo/placed-1", delete);

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "placed-1")
                        .then()
                        .statusCode(200)
                        .body("spec.targetNodes", equalTo(3))
                        .body("metadata.deletionTimestamp", org.hamcrest.Matchers.notNullValue()));
    }

    @Test
    void aRefusedTopicRequestForAnExistingPoolIsAWarningOnThePool() {
        probe.send(
                Topics.NODEPOOL_REQUESTED.name(),
                "demo/stale-pool",
                request("s-1", "demo/stale-pool", "stale-pool", 1));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "stale-pool")
                        .then()
                        .statusCode(200));
        String stale = request("s-2", "demo/stale-pool", "stale-pool", 4)
                .replace("\"name\":\"stale-pool\"", "\"name\":\"stale-pool\",\"resourceVersion\":\"1\"");
        assertThat(stale).contains("resourceVersion");
        probe.send(Topics.NODEPOOL_REQUESTED.name(), "demo/stale-pool", stale);

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get(POOLS + "stale-pool/events")
                        .then()
                        .statusCode(200)
                        .body("items.find { it.reason == 'CWNodePoolNodesRequestFailed' }.type", equalTo("Warning"))
                        .body(
                                "items.find { it.reason == 'CWNodePoolNodesRequestFailed' }.message",
                                org.hamcrest.Matchers.allOf(
                                        org.hamcrest.Matchers.containsString("s-2"),
                                        org.hamcrest.Matchers.containsString("Conflict"))));
        given().auth().oauth2("demo-token").get(POOLS + "stale-pool").then().body("spec.targetNodes", equalTo(1));
    }
}
