package com.coreweave.nodepool.quota;

import static com.coreweave.nodepool.quota.Pools.ZONE;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.resource.Conditions.Quota;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The quota-service against the real broker, as its users meet it: operators set quotas over REST, the pool processor's
 * demands arrive on {@code quota-demanded}, decisions come out on {@code capacity-demanded} (keyed by the capacity
 * ledger) and events on {@code nodepool-event-recorded}, orgs read their quotas over REST. Each test uses its own
 * instance types, so the tests do not depend on each other's order.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class QuotaServiceIT {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final String ADMIN = "admin-token";
    static TopicProbe probe;

    @BeforeAll
    static void open() {
        probe = new TopicProbe(KafkaResource.bootstrapServers());
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    static void setQuota(String org, String type, int maxNodes) {
        given().auth()
                .oauth2(ADMIN)
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": " + maxNodes + "}")
                .put("/admin/quotas/" + org + "/" + ZONE + "/" + type)
                .then()
                .log()
                .ifValidationFails()
                .statusCode(200)
                .body("maxNodes", equalTo(maxNodes))
                .body("instanceType", equalTo(type));
    }

    /** What the api-service's pool processor writes with an accepted pool: its demand, keyed by its quota. */
    static void publish(NodePoolAccepted pool) {
        QuotaDemanded demand = QuotaDemanded.of(pool);
        probe.sendJson(Topics.QUOTA_DEMANDED.name(), demand.quotaKey().toString(), demand);
    }

    /** The latest decision for {@code pool} once it satisfies {@code expected}. */
    static QuotaChecked decided(String pool, Predicate<QuotaChecked> expected) {
        List<TopicProbe.Read> read = probe.readUntil(
                Topics.CAPACITY_DEMANDED.name(),
                records -> latest(records, pool).filter(expected).isPresent(),
                WAIT);
        return latest(read, pool).orElseThrow();
    }

    static Optional<QuotaChecked> latest(List<TopicProbe.Read> records, String pool) {
        return records.stream()
                .map(r -> r.as(CapacityDemanded.class))
                .filter(d -> d.pool().equals(pool))
                .reduce((a, b) -> b)
                .map(CapacityDemanded::quota);
    }

    static RecordedEvent event(String pool, String reason) {
        List<TopicProbe.Read> read = probe.readUntil(
                Topics.NODEPOOL_EVENT_RECORDED.name(),
                records -> records.stream()
                        .anyMatch(r -> r.key().equals(pool) && r.value().contains(reason)),
                WAIT);
        return read.stream()
                .filter(r -> r.key().equals(pool))
                .flatMap(r -> r.as(RecordedEvents.class).events().stream())
                .filter(e -> e.reason().equals(reason))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void shouldHoldAPoolOverQuotaAndAdmitItByItselfOnceTheQuotaIsRaised() {
        String type = "gd-8xa100-i128";
        setQuota("demo", type, 10);
        publish(Pools.accepted("demo", "train-a", "uid-train-a", 1, 6, ZONE, type, true, false));
        publish(Pools.accepted("demo", "train-b", "uid-train-b", 1, 6, ZONE, type, true, false));

        assertThat(decided("demo/train-a", d -> Quota.UNDER.equals(d.reason())).admittedNodes())
                .isEqualTo(6);
        QuotaChecked held = decided("demo/train-b", d -> Quota.OVER.equals(d.reason()));
        assertThat(held.admittedNodes()).isZero();
        assertThat(held.message()).contains("targetNodes 6 would use 12 of 10", "2 over quota");
        assertThat(event("demo/train-b", "CWOverQuota").message())
                .startsWith("NodePool targetNodes pushes you over quota for gd-8xa100-i128 in US-EAST-04A");
        Awaitility.await()
                .atMost(WAIT)
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get("/quotas")
                        .then()
                        .log()
                        .ifValidationFails()
                        .statusCode(200)
                        .body("items.find { it.instanceType == 'gd-8xa100-i128' }.maxNodes", equalTo(10))
                        .body("items.find { it.instanceType == 'gd-8xa100-i128' }.usedNodes", equalTo(6))
                        .body("items.find { it.instanceType == 'gd-8xa100-i128' }.freeNodes", equalTo(4))
                        .body(
                                "items.find { it.instanceType == 'gd-8xa100-i128' }.pools.find { it.name == 'train-b' }.reason",
                                equalTo("Over")));

        setQuota("demo", type, 12);

        QuotaChecked admitted = decided("demo/train-b", d -> Quota.UNDER.equals(d.reason()));
        assertThat(admitted.admittedNodes()).isEqualTo(6);
        assertThat(admitted.usage()).isEqualTo(12);
    }

    @Test
    void shouldReportNotSetForAPoolWithoutAQuota() {
        publish(Pools.accepted("demo", "render", "uid-render", 1, 2, ZONE, "gd-8xl40s-i128", true, false));

        QuotaChecked render = decided("demo/render", d -> d.reason() != null);

        assertThat(render.reason()).isEqualTo(Quota.NOT_SET);
        assertThat(render.admittedNodes()).isZero();
        assertThat(event("demo/render", "CWNodePoolQuotaCheckFailed").message())
                .isEqualTo("Quota not found for instance type gd-8xl40s-i128 in zone US-EAST-04A.");
    }

    @Test
    void shouldAnswerBadAdminRequestsWithAStatus() {
        String path = "/admin/quotas/demo/" + ZONE + "/gd-8xh100ib-i128";
        given().contentType(ContentType.JSON)
                .body("{\"maxNodes\": 1}")
                .put(path)
                .then()
                .statusCode(401)
                .body("kind", equalTo("Status"));
        given().auth()
                .oauth2("demo-token")
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": 1}")
                .put(path)
                .then()
                .statusCode(403)
                .body("reason", equalTo("Forbidden"));
        given().auth().oauth2("demo-token").get("/admin/quotas").then().statusCode(403);
        given().auth()
                .oauth2(ADMIN)
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": ")
                .put(path)
                .then()
                .log()
                .ifValidationFails()
                .statusCode(400)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("BadRequest"));
        given().auth()
                .oauth2(ADMIN)
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": -1}")
                .put(path)
                .then()
                .log()
                .ifValidationFails()
                .statusCode(422)
                .body("reason", equalTo("Invalid"))
                .body("details.causes[0].field", equalTo("maxNodes"));
        given().auth()
                .oauth2(ADMIN)
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": 1}")
                .put("/admin/quotas/demo/" + ZONE + "/bad%20type")
                .then()
                .log()
                .ifValidationFails()
                .statusCode(422)
                .body("details.causes[0].field", equalTo("instanceType"));
    }

    @Test
    void shouldDeadLetterGarbageAndProcessTheNextGoodRecord() {
        String type = "cd-gp-a192-genoa";
        String quotaKey = "other/" + ZONE + "/" + type;
        probe.send(Topics.QUOTA_LIMIT_SET.name(), quotaKey, "{not json");
        probe.send(Topics.QUOTA_DEMANDED.name(), "other/garbage", "{\"pool\": 7}");
        setQuota("other", type, 4);
        publish(Pools.accepted("other", "etl", "uid-etl", 1, 3, ZONE, type, true, false));

        assertThat(decided("other/etl", d -> d.reason() != null).reason()).isEqualTo(Quota.UNDER);
        List<TopicProbe.Read> dead = probe.readUntil(
                DeadLetters.serviceTopic("quota-service"),
                records -> records.stream()
                                .filter(r -> r.key().equals(quotaKey) || r.key().equals("other/garbage"))
                                .count()
                        == 2,
                WAIT);
        assertThat(dead)
                .filteredOn(r -> r.key().equals(quotaKey))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.value()).isEqualTo("{not json");
                    assertThat(r.headers())
                            .containsEntry(DeadLetters.SOURCE_TOPIC, "quota-limit-set")
                            .containsEntry(DeadLetters.SERVICE, "quota-service")
                            .containsKey(DeadLetters.REASON);
                });
        assertThat(dead)
                .filteredOn(r -> r.key().equals("other/garbage"))
                .singleElement()
                .satisfies(r -> assertThat(r.headers()).containsEntry(DeadLetters.SOURCE_TOPIC, "quota-demanded"));
        // What an operator sees: each dead letter counted by topic and code, and the service still ready.
        Awaitility.await()
                .atMost(WAIT)
                .untilAsserted(() -> assertThat(given().auth()
                                .oauth2(ADMIN)
                                .get("/q/metrics")
                                .then()
                                .statusCode(200)
                                .extract()
                                .asString())
                        .containsPattern("nodepool_dead_letters_total\\{code=\"MalformedJson\","
                                + "service=\"quota-service\",topic=\"quota-limit-set\"} [1-9]")
                        .containsPattern("nodepool_dead_letters_total\\{code=\"\\w+\",service=\"quota-service\","
                                + "topic=\"quota-demanded\"} [1-9]")
                        .contains(
                                "nodepool_stream_tasks_stalled 0.0",
                                "nodepool_stream_thread_replace_loop 0.0",
                                "nodepool_stream_thread_replacements_total 0.0"));
        given().get("/q/health/ready").then().log().ifValidationFails().statusCode(200);
    }

    @Test
    void shouldShowAnOrgOnlyItsOwnQuotas() {
        setQuota("other", "gd-4xa40-i64", 3);
        setQuota("demo", "gd-4xa40-i64", 5);

        Awaitility.await()
                .atMost(WAIT)
                .untilAsserted(() -> given().auth()
                        .oauth2("other-token")
                        .get("/quotas")
                        .then()
                        .log()
                        .ifValidationFails()
                        .statusCode(200)
                        .body("org", equalTo("other"))
                        .body("items.org", everyItem(equalTo("other")))
                        .body("items.find { it.instanceType == 'gd-4xa40-i64' }.maxNodes", equalTo(3)));
        Awaitility.await()
                .atMost(WAIT)
                .untilAsserted(() -> given().auth()
                        .oauth2("demo-token")
                        .get("/quotas")
                        .then()
                        .statusCode(200)
                        .body("items.org", not(hasItem("other")))
                        .body("items.find { it.instanceType == 'gd-4xa40-i64' }.maxNodes", equalTo(5)));
        given().auth().oauth2("demo-token").get("/internal/quotas/other").then().statusCode(403);
        given().auth()
                .oauth2(ADMIN)
                .get("/admin/quotas")
                .then()
                .statusCode(200)
                .body("items.org", hasItem("other"))
                .body("items.org", hasItem("demo"))
                .body("kind", startsWith("QuotaList"));
    }
}
