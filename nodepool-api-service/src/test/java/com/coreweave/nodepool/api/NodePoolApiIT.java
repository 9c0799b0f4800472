package com.coreweave.nodepool.api;

import static io.restassured.RestAssured.given;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;

import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.InstanceTypes;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The NodePool resource over REST, Kubernetes style, against the real broker. */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class NodePoolApiIT {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";
    static TopicProbe probe;

    @BeforeAll
    static void catalogue() {
        probe = Facts.probeWithCatalogue();
        InstanceTypes.publish(probe, InstanceTypes.GH200);
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    static RequestSpecification as(String token) {
        return given().auth().oauth2(token).contentType("application/json");
    }

    static String manifest(String name, String type, int target) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool",
         "metadata":{"name":"%s","labels":{"team":"research"}},
         "spec":{"instanceType":"%s","targetNodes":%d,"nodeLabels":{"gpu":"a100"},
                 "nodeTaints":[{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}]}}
        """.formatted(name, type, target);
    }

    static JsonPath create(String name, int target) {
        return as("demo-token")
                .body(manifest(name, "gd-8xa100-i128", target))
                .post(POOLS)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath();
    }

    @Test
    void createStoresTheResourceWithIdentityAndDefaults() {
        JsonPath pool = create("crud-create", 2);
        assertThat(pool.getString("metadata.uid")).isNotBlank();
        assertThat(pool.getLong("metadata.generation")).isEqualTo(1);
        assertThat(pool.getString("metadata.resourceVersion")).isNotBlank();
        assertThat(pool.getString("metadata.creationTimestamp")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(pool.getString("spec.computeClass")).isEqualTo("default");
        assertThat(pool.getString("spec.region")).isEqualTo("US-EAST-04A");
        assertThat(pool.getString("spec.lifecycle.scaleDownStrategy")).isEqualTo("IdleOnly");
        assertThat(pool.getString("spec.nodeConfigurationUpdateStrategy.type")).isEqualTo("OnSpecUpdate");
        assertThat(pool.getBoolean("spec.autoscaling")).isFalse();

        as("demo-token")
                .get(POOLS + "/crud-create")
                .then()
                .statusCode(200)
                .body("metadata.uid", equalTo(pool.getString("metadata.uid")))
                .body("status.conditions.find { it.type == 'Validated' }.reason", equalTo("Valid"));
        as("demo-token")
                .body(manifest("crud-create", "gd-8xa100-i128", 3))
                .post(POOLS)
                .then()
                .statusCode(409)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("AlreadyExists"));
    }

    @Test
    void createAcceptsYaml() {
        String yaml = """
        apiVersion: compute.coreweave.com/v1alpha1
        kind: NodePool
        metadata:
          name: crud-yaml
        spec:
          instanceType: gd-8xa100-i128
          targetNodes: 1
          lifecycle:
            scaleDownStrategy: PreferIdle
        """;
        given().auth()
                .oauth2("demo-token")
                .contentType("application/yaml")
                .body(yaml.getBytes(UTF_8))
                .post(POOLS)
                .then()
                .statusCode(201)
                .body("spec.lifecycle.scaleDownStrategy", equalTo("PreferIdle"));
    }

    @Test
    void structuralErrorsAreRefusedAtOnceWithACausePerField() {
        as("demo-token")
                .body("""
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"Bad_Name"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":"two","minNodes":-1,"colour":"red",
                 "computeClass":"cheap","nodeLabels":{"bad key!":"x"},
                 "nodeTaints":[{"key":"k","effect":"Sometimes"}]},
         "status":{"currentNodes":5}}""")
                .post(POOLS)
                .then()
                .statusCode(422)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("Invalid"))
                .body("code", equalTo(422))
                .body("details.causes.field", hasItem("metadata.name"))
                .body("details.causes.field", hasItem("spec.targetNodes"))
                .body("details.causes.field", hasItem("spec.minNodes"))
                .body("details.causes.field", hasItem("spec.colour"))
                .body("details.causes.field", hasItem("spec.computeClass"))
                .body("details.causes.field", hasItem("spec.nodeLabels"))
                .body("details.causes.field", hasItem("spec.nodeTaints[0].effect"));
        as("demo-token").body("{not json").post(POOLS).then().statusCode(400).body("reason", equalTo("BadRequest"));
    }

    @Test
    void callersMustAuthenticateAndSeeOnlyTheirOrg() {
        create("tenancy-pool", 1);
        given().get(POOLS).then().statusCode(401).body("reason", equalTo("Unauthorized"));
        given().auth().oauth2("not-a-token").get(POOLS).then().statusCode(401);
        as("other-token").get(POOLS + "/tenancy-pool").then().statusCode(404).body("reason", equalTo("NotFound"));
        as("other-token").delete(POOLS + "/tenancy-pool").then().statusCode(404);
        List<String> theirs = as("other-token")
                .get(POOLS)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("items.metadata.name");
        assertThat(theirs).doesNotContain("tenancy-pool");
    }

    @Test
    void generationChangesWithTheSpecAndResourceVersionWithEveryWrite() {
        JsonPath created = create("versions", 1);
        String rv1 = created.getString("metadata.resourceVersion");

        JsonPath same = as("demo-token")
                .body(manifest("versions", "gd-8xa100-i128", 1))
                .put(POOLS + "/versions")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(same.getLong("metadata.generation")).isEqualTo(1);
        assertThat(same.getString("metadata.resourceVersion")).isEqualTo(rv1);

        JsonPath relabeled = as("demo-token")
                .contentType("application/merge-patch+json")
                .body("{\"metadata\":{\"labels\":{\"team\":\"infra\"}}}")
                .patch(POOLS + "/versions")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(relabeled.getLong("metadata.generation")).isEqualTo(1);
        assertThat(relabeled.getString("metadata.resourceVersion")).isNotEqualTo(rv1);

        JsonPath scaled = as("demo-token")
                .contentType("application/merge-patch+json")
                .body("{\"spec\":{\"targetNodes\":3}}")
                .patch(POOLS + "/versions")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(scaled.getLong("metadata.generation")).isEqualTo(2);
        assertThat(scaled.getInt("spec.targetNodes")).isEqualTo(3);
        assertThat(scaled.getString("metadata.labels.team")).isEqualTo("infra");

        String stale = manifest("versions", "gd-8xa100-i128", 4)
                .replace("\"name\":\"versions\"", "\"name\":\"versions\",\"resourceVersion\":\"" + rv1 + "\"");
        as("demo-token")
                .body(stale)
                .put(POOLS + "/versions")
                .then()
                .statusCode(409)
                .body("reason", equalTo("Conflict"));
        as("demo-token")
                .body(manifest("versions", "gd-8xh100ib-i128", 3))
                .put(POOLS + "/versions")
                .then()
                .statusCode(422)
                .body("details.causes[0].field", equalTo("spec.instanceType"))
                .body("message", containsString("immutable"));
        as("demo-token")
                .body(manifest("other-name", "gd-8xa100-i128", 3))
                .put(POOLS + "/versions")
                .then()
                .statusCode(400);
    }

    @Test
    void getThenEditTheSpecAndPutTheWholeObjectBackWorksAndItsStatusIsIgnored() {
        create("round-trip", 1);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> as("demo-token")
                                .get(POOLS + "/round-trip")
                                .then()
                                .extract()
                                .jsonPath()
                                .getString("status.conditions.find { it.type == 'Validated' }.reason")
                        != null);
        String read = as("demo-token")
                .get(POOLS + "/round-trip")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertThat(read).contains("\"status\"", "\"resourceVersion\"", "\"uid\"");

        JsonPath written = as("demo-token")
                .body(read.replace("\"targetNodes\":1", "\"targetNodes\":2")
                        .replace("\"conditions\":[", "\"conditions\":[{\"type\":\"Forged\",\"status\":\"True\"},"))
                .put(POOLS + "/round-trip")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();

        assertThat(written.getInt("spec.targetNodes")).isEqualTo(2);
        assertThat(written.getLong("metadata.generation")).isEqualTo(2);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(as("demo-token")
                                .get(POOLS + "/round-trip")
                                .then()
                                .extract()
                                .jsonPath()
                                .getList("status.conditions.type"))
                        .contains("Validated")
                        .doesNotContain("Forged"));
        as("demo-token")
                .contentType("application/merge-patch+json")
                .body("{\"status\":{\"currentNodes\":9}}")
                .patch(POOLS + "/round-trip")
                .then()
                .statusCode(200)
                .body("spec.targetNodes", equalTo(2));
    }

    @Test
    void listFiltersByLabelSelector() {
        create("selector-a", 1);
        as("demo-token")
                .body(manifest("selector-b", "gd-8xa100-i128", 1).replace("research", "infra"))
                .post(POOLS)
                .then()
                .statusCode(201);
        List<String> research = as("demo-token")
                .queryParam("labelSelector", "team=research")
                .get(POOLS)
                .then()
                .statusCode(200)
                .body("kind", equalTo("NodePoolList"))
                .extract()
                .jsonPath()
                .getList("items.metadata.name");
        assertThat(research).contains("selector-a").doesNotContain("selector-b");
        List<String> notResearch = as("demo-token")
                .queryParam("labelSelector", "team!=research")
                .get(POOLS)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("items.metadata.name");
        assertThat(notResearch).contains("selector-b").doesNotContain("selector-a");
        as("demo-token")
                .queryParam("labelSelector", "team in (a")
                .get(POOLS)
                .then()
                .statusCode(400);
    }

    @Test
    void anIdempotencyKeyMakesARepeatedCreateChangeNothing() {
        JsonPath first = as("demo-token")
                .header("Idempotency-Key", "create-once-42")
                .body(manifest("idempotent", "gd-8xa100-i128", 1))
                .post(POOLS)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath();
        JsonPath again = as("demo-token")
                .header("Idempotency-Key", "create-once-42")
                .body(manifest("idempotent", "gd-8xa100-i128", 1))
                .post(POOLS)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath();
        assertThat(again.getString("metadata.uid")).isEqualTo(first.getString("metadata.uid"));
        assertThat(again.getString("metadata.resourceVersion")).isEqualTo(first.getString("metadata.resourceVersion"));
    }

    @Test
    void platformRulesAreReportedAsValidatedInvalidWithTheirEvents() {
        create("bad-type", 1);
        as("demo-token")
                .body(manifest("unknown-type", "gd-99xz900-i1", 1))
                .post(POOLS)
                .then()
                .statusCode(201);
        as("demo-token")
                .body(manifest("spot-superchip", "gd-1xgh200", 1)
                        .replace("\"instanceType\"", "\"computeClass\":\"spot\",\"instanceType\""))
                .post(POOLS)
                .then()
                .statusCode(201);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            as("demo-token")
                    .get(POOLS + "/unknown-type")
                    .then()
                    .body("status.conditions.find { it.type == 'Validated' }.reason", equalTo("Invalid"))
                    .body("status.conditions.find { it.type == 'Validated' }.status", equalTo("False"));
            as("demo-token")
                    .get(POOLS + "/unknown-type/events")
                    .then()
                    .body("items.reason", hasItem("CWInvalidInstanceType"));
            as("demo-token")
                    .get(POOLS + "/spot-superchip")
                    .then()
                    .body("status.conditions.find { it.type == 'Validated' }.message", containsString("Superchip"));
        });
    }

    @Test
    void statusFollowsTheOtherServicesFactsAsInTheReferenceHealthyExample() {
        Facts facts = new Facts(probe, create("healthy", 1), "demo");
        facts.registered(1);
        facts.reconciledAdmitted(1);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/healthy")
                        .then()
                        .body(
                                "status.conditions.type",
                                equalTo(List.of(
                                        "Validated", "Capacity", "Quota", "AtTarget", "NodeReconfigurationRequired")))
                        .body(
                                "status.conditions.reason",
                                equalTo(List.of("Valid", "Sufficient", "Under", "TargetMet", "AllNodesUpToDate")))
                        .body("status.conditions.status", equalTo(List.of("True", "True", "True", "True", "False")))
                        .body("status.currentNodes", equalTo(1))
                        .body("status.inProgress", equalTo(0))
                        .body("status.queuedNodes", equalTo(0))
                        .body("status.observedGeneration", equalTo(1)));
        String since = as("demo-token")
                .get(POOLS + "/healthy")
                .then()
                .extract()
                .jsonPath()
                .getString("status.conditions.find { it.type == 'AtTarget' }.lastTransitionTime");

        as("demo-token")
                .get(POOLS + "/healthy/nodes")
                .then()
                .statusCode(200)
                .body("kind", equalTo("NodeList"))
                .body("items[0].metadata.labels.'compute.coreweave.com/node-pool'", equalTo("healthy"))
                .body("items[0].status.conditions.type", hasItem("CWRegistered"));

        facts.event("repeat-1", CwEvent.CWNodeRequestQueued, "Requested 1 node.");
        facts.event("repeat-2", CwEvent.CWNodeRequestQueued, "Requested 1 node.");
        facts.event("repeat-2", CwEvent.CWNodeRequestQueued, "Requested 1 node.");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/healthy/events")
                        .then()
                        .body("items.find { it.reason == 'CWNodeRequestQueued' }.count", equalTo(2)));

        facts.reconciledAdmitted(1);
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/healthy")
                        .then()
                        .body("status.conditions.find { it.type == 'AtTarget' }.lastTransitionTime", equalTo(since)));
    }

    @Test
    void deletionRemovesNodesThenThePool() {
        Facts facts = new Facts(probe, create("doomed", 1), "demo");
        facts.registered(7);
        facts.reconciled(1, 1, false, false);
        as("demo-token")
                .delete(POOLS + "/doomed")
                .then()
                .statusCode(200)
                .body("metadata.deletionTimestamp", notNullValue());
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/doomed")
                        .then()
                        .body("status.conditions.find { it.type == 'AtTarget' }.reason", equalTo("PendingDelete"))
                        .body("status.conditions.find { it.type == 'NodesRemoved' }.reason", equalTo("Pending")));
        as("demo-token")
                .body(manifest("doomed", "gd-8xa100-i128", 2))
                .put(POOLS + "/doomed")
                .then()
                .statusCode(409);

        facts.removed(7);
        facts.reconciled(0, 0, true, true);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> as("demo-token").get(POOLS + "/doomed").then().statusCode(404));
        var status = probe.readUntil(
                Topics.NODEPOOL_STATUS.name(),
                records -> records.stream().anyMatch(r -> r.key().equals("demo/doomed") && r.value() == null),
                Duration.ofSeconds(10));
        assertThat(status.stream()
                        .filter(r -> "demo/doomed".equals(r.key()) && r.value() != null)
                        .map(r -> r.value())
                        .toList())
                .anyMatch(v -> v.contains("\"reason\":\"Complete\""));
        probe.readUntil(
                Topics.NODEPOOL_EVENTS.name(),
                records -> records.stream()
                        .anyMatch(
                                r -> r.key().equals("demo/doomed") && r.value().contains("CWNodePoolDeleted")),
                Duration.ofSeconds(10));
        create("doomed", 1);
    }

    @Test
    void deletingOneNodeAsksTheProvisionerToReplaceItAndAnswersWithTheNode() {
        Facts facts = new Facts(probe, create("one-node-less", 2), "demo");
        facts.registered(3);
        String node = facts.machine(3);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> as("demo-token")
                        .get(POOLS + "/one-node-less/nodes")
                        .then()
                        .body("items.metadata.name", hasItem(node)));

        as("demo-token")
                .delete(POOLS + "/one-node-less/nodes/" + node)
                .then()
                .statusCode(202)
                .body("metadata.name", equalTo(node));
        as("demo-token")
                .delete(POOLS + "/one-node-less/nodes/no-such-node")
                .then()
                .statusCode(404)
                .body("kind", equalTo("Status"));
        as("other-token").delete(POOLS + "/one-node-less/nodes/" + node).then().statusCode(404);
        as("demo-token").delete(POOLS + "/no-such-pool/nodes/" + node).then().statusCode(404);

        var requests = probe
                .readUntil(
                        Topics.NODE_DELETION_REQUESTED.name(),
                        records -> records.stream().anyMatch(r -> r.key().equals("demo/one-node-less")),
                        Duration.ofSeconds(10))
                .stream()
                .filter(r -> r.key().equals("demo/one-node-less"))
                .toList();
        assertThat(requests).singleElement().satisfies(r -> {
            var request = Topics.NODE_DELETION_REQUESTED.read(r.key(), r.value().getBytes(UTF_8));
            assertThat(request.node()).isEqualTo(node);
            assertThat(request.uid()).isEqualTo(facts.pool().uid());
        });
    }
}
