package com.coreweave.nodepool.api;

import static com.coreweave.nodepool.api.NodePoolApiIT.POOLS;
import static com.coreweave.nodepool.api.NodePoolApiIT.as;
import static com.coreweave.nodepool.api.NodePoolApiIT.create;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.PendingNodeConfiguration;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Node configuration requests over REST ({@code /upgrade}, {@code /rollback}, {@code /reconfigure}) and the node
 * configurations in the status, against the real broker.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class NodeConfigurationIT {

    static final String TOPIC = Topics.NODEPOOL_CONFIGURATION_REQUESTED.name();
    static TopicProbe probe;

    @BeforeAll
    static void catalogue() {
        probe = Facts.probeWithCatalogue();
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    /** Every request published for {@code demo/<pool>} so far. */
    static List<NodeConfigurationRequested> published(String pool) {
        return probe.readAll(TOPIC).stream()
                .filter(r -> r.key().equals("demo/" + pool))
                .map(r -> r.as(NodeConfigurationRequested.class))
                .toList();
    }

    static NodeConfigurationRequested accepted(Response response) {
        response.then().statusCode(202);
        return Json.read(response.asString(), NodeConfigurationRequested.class);
    }

    @Test
    void upgradeWithoutABodyPublishesAnUpgradeOfTheCurrentIncarnation() {
        String uid = create("config-upgrade", 1).getString("metadata.uid");
        Instant before = Instant.now();

        NodeConfigurationRequested answer =
                accepted(given().auth().oauth2("demo-token").post(POOLS + "/config-upgrade/upgrade"));

        assertThat(answer.id()).isNotBlank();
        assertThat(answer.requestedAt()).isBetween(before, Instant.now());
        assertThat(answer)
                .isEqualTo(new NodeConfigurationRequested(
                        answer.id(),
                        "demo",
                        "config-upgrade",
                        uid,
                        Action.Upgrade,
                        null,
                        List.of(),
                        answer.requestedAt()));
        assertThat(published("config-upgrade")).containsExactly(answer);

        NodeConfigurationRequested again =
                accepted(as("demo-token").body("{}").post(POOLS + "/config-upgrade/upgrade"));
        assertThat(again.id())
                .as("without an Idempotency-Key every request is new")
                .isNotEqualTo(answer.id());
        assertThat(published("config-upgrade")).containsExactly(answer, again);
    }

    @Test
    void rollbackPublishesTheRevisionAndARepeatedIdempotencyKeyTheSameId() {
        String uid = create("config-rollback", 1).getString("metadata.uid");
        String body = "{\"nodeProfile\": \"np-3f2a9c01\"}";

        NodeConfigurationRequested first = accepted(as("demo-token")
                .header("Idempotency-Key", "rollback-7")
                .body(body)
                .post(POOLS + "/config-rollback/rollback"));
        NodeConfigurationRequested repeat = accepted(as("demo-token")
                .header("Idempotency-Key", "rollback-7")
                .body(body)
                .post(POOLS + "/config-rollback/rollback"));

        assertThat(first)
                .isEqualTo(new NodeConfigurationRequested(
                        first.id(),
                        "demo",
                        "config-rollback",
                        uid,
                        Action.Rollback,
                        "np-3f2a9c01",
                        List.of(),
                        first.requestedAt()));
        assertThat(repeat.id()).isEqualTo(first.id());
        assertThat(published("config-rollback")).containsExactly(first, repeat);
        NodeConfigurationRequested upgrade = accepted(
                as("demo-token").header("Idempotency-Key", "rollback-7").post(POOLS + "/config-rollback/upgrade"));
        assertThat(upgrade.id()).as("the same key for another action").isNotEqualTo(first.id());
    }

    @Test
    void reconfigurePublishesTheNamedNodesOrNoneForAllOutdatedNodes() {
        Facts facts = new Facts(probe, create("config-reconfigure", 2), "demo");
        facts.registered(1);
        facts.registered(2);
        String node = facts.machine(2);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/config-reconfigure/nodes")
                        .then()
                        .body("items.metadata.name", hasItem(node)));

        NodeConfigurationRequested named = accepted(as("demo-token")
                .body("{\"nodes\": [\"" + node + "\"]}")
                .post(POOLS + "/config-reconfigure/reconfigure"));
        NodeConfigurationRequested all =
                accepted(given().auth().oauth2("demo-token").post(POOLS + "/config-reconfigure/reconfigure"));

        assertThat(named)
                .isEqualTo(new NodeConfigurationRequested(
                        named.id(),
                        "demo",
                        "config-reconfigure",
                        facts.pool().uid(),
                        Action.Reconfigure,
                        null,
                        List.of(node),
                        named.requestedAt()));
        assertThat(all.nodes()).isEmpty();
        assertThat(published("config-reconfigure")).containsExactly(named, all);

        as("demo-token")
                .body("{\"nodes\": [\"" + node + "\", \"no-such-node\"]}")
                .post(POOLS + "/config-reconfigure/reconfigure")
                .then()
                .statusCode(404)
                .body("reason", equalTo("NotFound"))
                .body("details.name", equalTo("no-such-node"))
                .body("details.kind", equalTo("nodes"));
        assertThat(published("config-reconfigure")).hasSize(2);
    }

    @Test
    void anInvalidBodyIsRefusedWithACausePerFieldAndPublishesNothing() {
        create("config-invalid", 1);
        String path = POOLS + "/config-invalid/";

        invalid(path + "rollback", "{}", "nodeProfile");
        invalid(path + "rollback", "", "nodeProfile");
        invalid(path + "rollback", "{\"nodeProfile\": 7}", "nodeProfile");
        invalid(path + "rollback", "{\"nodeProfile\": \"\"}", "nodeProfile");
        invalid(path + "rollback", "{\"nodeProfile\": \"" + "p".repeat(64) + "\"}", "nodeProfile");
        invalid(path + "rollback", "{\"nodeProfile\": \"np-1\", \"force\": true}", "force");
        invalid(path + "upgrade", "{\"nodeProfile\": \"np-1\"}", "nodeProfile");
        invalid(path + "reconfigure", "{\"nodes\": \"n-1\"}", "nodes");
        invalid(path + "reconfigure", "{\"nodes\": [\"\"]}", "nodes[0]");
        invalid(path + "reconfigure", "{\"nodes\": [], \"all\": true}", "all");
        for (String action : List.of("upgrade", "rollback", "reconfigure")) {
            as("demo-token")
                    .body("{not json")
                    .post(path + action)
                    .then()
                    .statusCode(400)
                    .body("kind", equalTo("Status"))
                    .body("reason", equalTo("BadRequest"));
        }
        assertThat(published("config-invalid")).isEmpty();
    }

    private static void invalid(String path, String body, String field) {
        as("demo-token")
                .body(body)
                .post(path)
                .then()
                .statusCode(422)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("Invalid"))
                .body("code", equalTo(422))
                .body("details.causes.field", equalTo(List.of(field)));
    }

    @Test
    void anotherOrgsPoolOrAMissingOneIsNotFound() {
        create("config-tenancy", 1);
        as("other-token")
                .post(POOLS + "/config-tenancy/upgrade")
                .then()
                .statusCode(404)
                .body("reason", equalTo("NotFound"));
        as("other-token")
                .body("{\"nodeProfile\": \"np-1\"}")
                .post(POOLS + "/config-tenancy/rollback")
                .then()
                .statusCode(404)
                .body("reason", equalTo("NotFound"));
        as("other-token")
                .post(POOLS + "/config-tenancy/reconfigure")
                .then()
                .statusCode(404)
                .body("reason", equalTo("NotFound"));
        as("demo-token")
                .post(POOLS + "/config-missing/upgrade")
                .then()
                .statusCode(404)
                .body("details.name", equalTo("config-missing"));
        given().post(POOLS + "/config-tenancy/upgrade").then().statusCode(401);
        assertThat(published("config-tenancy")).isEmpty();
    }

    @Test
    void aPoolBeingDeletedIsAConflict() {
        create("config-deleting", 1);
        as("demo-token").delete(POOLS + "/config-deleting").then().statusCode(200);

        for (String action : List.of("upgrade", "reconfigure")) {
            as("demo-token")
                    .post(POOLS + "/config-deleting/" + action)
                    .then()
                    .statusCode(409)
                    .body("kind", equalTo("Status"))
                    .body("reason", equalTo("Conflict"))
                    .body("message", containsString("being deleted"));
        }
        as("demo-token")
                .body("{\"nodeProfile\": \"np-1\"}")
                .post(POOLS + "/config-deleting/rollback")
                .then()
                .statusCode(409)
                .body("reason", equalTo("Conflict"));
        assertThat(published("config-deleting")).isEmpty();
    }

    @Test
    void theStatusShowsThePendingConfigurationAndTheRevisionsOfTheLatestReconcile() {
        JsonPath created = create("config-status", 1);
        Facts facts = new Facts(probe, created, "demo");
        facts.reconciled(1, 1, false, false);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/config-status")
                        .then()
                        .body("status.nodeProfile", equalTo("np-test0001"))
                        .body("status", not(hasKey("pendingNodeConfiguration")))
                        .body("status", not(hasKey("nodeConfigurationRevisions"))));

        Instant staged = Instant.parse("2026-11-22T10:00:00Z");
        facts.configured(
                new PendingNodeConfiguration(staged, "np-7be0d4e2", List.of("ncore image: stable 2026.11.2")),
                List.of(new NodeConfigurationRevision(
                        1,
                        staged.minusSeconds(86400),
                        "np-test0001",
                        false,
                        List.of("ncore image: stable 2026.11.1"))));
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/config-status")
                        .then()
                        .body("status.pendingNodeConfiguration.nodeProfile", equalTo("np-7be0d4e2"))
                        .body("status.pendingNodeConfiguration.createdAt", equalTo("2026-11-22T10:00:00Z"))
                        .body(
                                "status.pendingNodeConfiguration.summary",
                                equalTo(List.of("ncore image: stable 2026.11.2")))
                        .body("status.nodeConfigurationRevisions.nodeProfile", equalTo(List.of("np-test0001")))
                        .body("status.nodeConfigurationRevisions[0].activeNodes", equalTo(1))
                        .body("status.nodeConfigurationRevisions[0].disabled", equalTo(false)));
    }
}
