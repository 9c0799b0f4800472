package com.coreweave.nodepool.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;

import com.coreweave.nodepool.api.kube.ContinueToken;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes conventions of the API that kubectl relies on, over HTTP against the real broker: discovery, Tables,
 * field selectors, dry runs, field validation modes, the scale subresource, server-side apply conflicts, watch versions
 * (410 Gone, bookmarks) and operators' reads.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class KubernetesApiIT {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";
    static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    static TopicProbe probe;

    @TestHTTPResource("/")
    URL base;

    @BeforeAll
    static void catalogue() {
        probe = Facts.probeWithCatalogue();
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    static RequestSpecification as(String token) {
        return given().auth().oauth2(token).contentType("application/json");
    }

    static String manifest(String name, int target) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":%d}}""".formatted(name, target);
    }

    static void create(String name, int target) {
        as("demo-token").body(manifest(name, target)).post(POOLS).then().statusCode(201);
    }

    @Test
    void discoveryNamesTheResourcesTheirScopeVerbsAndScale() {
        as("demo-token")
                .get("/apis")
                .then()
                .statusCode(200)
                .body("kind", equalTo("APIGroupList"))
                .body("groups[0].name", equalTo("compute.coreweave.com"))
                .body("groups[0].preferredVersion.version", equalTo("v1alpha1"));
        as("demo-token")
                .get("/apis/compute.coreweave.com/v1alpha1")
                .then()
                .statusCode(200)
                .body("resources.name", hasItems("nodepools", "nodepools/scale"))
                .body("resources.find { it.name == 'nodepools' }.namespaced", equalTo(false))
                .body("resources.find { it.name == 'nodepools' }.verbs", hasItems("create", "patch", "watch"))
                .body("resources.find { it.name == 'nodepools/scale' }.kind", equalTo("Scale"));
        as("demo-token").get("/api/v1").then().statusCode(200).body("resources.name", hasItems("nodes", "events"));
        as("demo-token").get("/version").then().statusCode(200).body("major", equalTo("1"));
        as("demo-token")
                .get("/openapi/v3")
                .then()
                .statusCode(200)
                .body("paths.'apis/compute.coreweave.com/v1alpha1'.serverRelativeURL", containsString("?hash="));
    }

    @Test
    void aTableHasTheCrdColumnsAndTheFieldSelectorPicksOnePool() {
        create("table-a", 1);
        create("table-b", 2);

        JsonPath table = as("demo-token")
                .accept(TABLE)
                .queryParam("fieldSelector", "metadata.name=table-b")
                .get(POOLS)
                .then()
                .statusCode(200)
                .body("kind", equalTo("Table"))
                .extract()
                .jsonPath();

        assertThat(table.getList("columnDefinitions.name"))
                .startsWith(
                        "Name",
                        "Instance Type",
                        "Target",
                        "Current",
                        "In Progress",
                        "Queued",
                        "Validated",
                        "At Target",
                        "Age");
        assertThat(table.getList("rows")).hasSize(1);
        assertThat(table.getList("rows[0].cells").subList(0, 3)).containsExactly("table-b", "gd-8xa100-i128", 2);
        assertThat(table.getString("rows[0].object.kind")).isEqualTo("PartialObjectMetadata");
        as("demo-token")
                .queryParam("fieldSelector", "spec.targetNodes=2")
                .get(POOLS)
                .then()
                .statusCode(400)
                .body("message", containsString("field label not supported"));
    }

    @Test
    void aListComesInPagesThatShareTheFirstPagesVersion() {
        for (String name : List.of("page-a", "page-b", "page-c")) {
            as("demo-token")
                    .body(manifest(name, 1)
                            .replace(
                                    "\"name\":\"" + name + "\"",
                                    "\"name\":\"" + name + "\",\"labels\":{\"paged\":\"yes\"}"))
                    .post(POOLS)
                    .then()
                    .statusCode(201);
        }

        JsonPath first = as("demo-token")
                .queryParam("labelSelector", "paged=yes")
                .queryParam("limit", 2)
                .get(POOLS)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(first.getList("items.metadata.name")).containsExactly("page-a", "page-b");
        String next = first.getString("metadata.continue");
        assertThat(next).isNotBlank();
        JsonPath second = as("demo-token")
                .queryParam("labelSelector", "paged=yes")
                .queryParam("limit", 2)
                .queryParam("continue", next)
                .get(POOLS)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(second.getList("items.metadata.name")).containsExactly("page-c");
        assertThat(second.getString("metadata.continue")).isNull();
        assertThat(second.getString("metadata.resourceVersion")).isEqualTo(first.getString("metadata.resourceVersion"));

        as("demo-token")
                .queryParam("limit", 2)
                .queryParam("continue", "not-a-token")
                .get(POOLS)
                .then()
                .statusCode(400);
        // A token is the caller's own: another org continuing demo's list, or an unsigned position, is refused.
        as("other-token")
                .queryParam("limit", 2)
                .queryParam("continue", next)
                .get(POOLS)
                .then()
                .statusCode(400)
                .body("message", containsString("another caller's list"));
        String unsigned = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString((first.getString("metadata.resourceVersion") + "\n0").getBytes(StandardCharsets.UTF_8));
        as("other-token")
                .queryParam("limit", 500)
                .queryParam("continue", unsigned)
                .get(POOLS)
                .then()
                .statusCode(400);
        // A position the live feed no longer reaches is 410 Expired: the client lists again.
        String stale = new ContinueToken("demo", "857370", "demo/page-a")
                .encode("test-only-continue-token-secret".getBytes(StandardCharsets.UTF_8));
        as("demo-token")
                .queryParam("limit", 2)
                .queryParam("continue", stale)
                .get(POOLS)
                .then()
                .statusCode(410)
                .body("reason", equalTo("Expired"));
    }

    @Test
    void aDryRunIsDecidedButNothingIsStored() {
        as("demo-token")
                .queryParam("dryRun", "All")
                .body(manifest("dry", 1))
                .post(POOLS)
                .then()
                .statusCode(201)
                .body("metadata.name", equalTo("dry"));
        as("demo-token").get(POOLS + "/dry").then().statusCode(404);
        create("dry-existing", 1);
        as("demo-token")
                .queryParam("dryRun", "All")
                .contentType("application/merge-patch+json")
                .body("{\"spec\":{\"targetNodes\":5}}")
                .patch(POOLS + "/dry-existing")
                .then()
                .statusCode(200)
                .body("spec.targetNodes", equalTo(5));
        as("demo-token").get(POOLS + "/dry-existing").then().body("spec.targetNodes", equalTo(1));
    }

    @Test
    void unknownFieldsAreRefusedWarnedOrDroppedAsFieldValidationAsks() {
        String typo = manifest("typo", 1).replace("\"targetNodes\":1", "\"targetNodes\":1,\"colour\":\"red\"");
        as("demo-token")
                .queryParam("fieldValidation", "Strict")
                .body(typo)
                .post(POOLS)
                .then()
                .statusCode(422)
                .body("details.causes.field", hasItem("spec.colour"));
        as("demo-token")
                .queryParam("fieldValidation", "Warn")
                .body(typo)
                .post(POOLS)
                .then()
                .statusCode(201)
                .header("Warning", containsString("unknown field \\\"spec.colour\\\""));
        as("demo-token")
                .queryParam("fieldValidation", "Sometimes")
                .body(typo)
                .post(POOLS)
                .then()
                .statusCode(400);
    }

    @Test
    void scaleSetsTargetNodesAndStrategicMergeIsRefusedClearly() {
        create("scaled", 1);
        as("demo-token")
                .get(POOLS + "/scaled/scale")
                .then()
                .statusCode(200)
                .body("kind", equalTo("Scale"))
                .body("spec.replicas", equalTo(1));
        as("demo-token")
                .contentType("application/merge-patch+json")
                .body("{\"spec\":{\"replicas\":3}}")
                .patch(POOLS + "/scaled/scale")
                .then()
                .statusCode(200)
                .body("spec.replicas", equalTo(3));
        as("demo-token").get(POOLS + "/scaled").then().body("spec.targetNodes", equalTo(3));
        as("demo-token")
                .contentType("application/strategic-merge-patch+json")
                .body("{\"spec\":{\"targetNodes\":2}}")
                .patch(POOLS + "/scaled")
                .then()
                .statusCode(415)
                .body("message", containsString("--type=merge"));
    }

    @Test
    void serverSideApplyConflictsWithAnotherManagersFieldUnlessForced() {
        String config = manifest("applied", 1);
        as("demo-token")
                .contentType("application/apply-patch+yaml")
                .queryParam("fieldManager", "team-a")
                .body(config.getBytes(StandardCharsets.UTF_8))
                .patch(POOLS + "/applied")
                .then()
                .statusCode(201);
        as("demo-token")
                .contentType("application/merge-patch+json")
                .queryParam("fieldManager", "scaler")
                .body("{\"spec\":{\"targetNodes\":2}}")
                .patch(POOLS + "/applied")
                .then()
                .statusCode(200);

        as("demo-token")
                .contentType("application/apply-patch+yaml")
                .queryParam("fieldManager", "team-a")
                .body(config.getBytes(StandardCharsets.UTF_8))
                .patch(POOLS + "/applied")
                .then()
                .statusCode(409)
                .body("details.causes[0].reason", equalTo("FieldManagerConflict"))
                .body("details.causes[0].field", equalTo(".spec.targetNodes"))
                .body("message", containsString("conflict with \"scaler\""));
        as("demo-token")
                .contentType("application/apply-patch+yaml")
                .queryParam("fieldManager", "team-a")
                .queryParam("force", "true")
                .body(config.getBytes(StandardCharsets.UTF_8))
                .patch(POOLS + "/applied")
                .then()
                .statusCode(200)
                .body("spec.targetNodes", equalTo(1));
        as("demo-token")
                .contentType("application/apply-patch+yaml")
                .body(config.getBytes(StandardCharsets.UTF_8))
                .patch(POOLS + "/applied")
                .then()
                .statusCode(400)
                .body("message", containsString("fieldManager is required"));
    }

    /**
     * kubectl's managed fields migration: after client-side applies, {@code apply --server-side} replaces
     * {@code metadata.managedFields} with a JSON patch that moves the client-side apply's fields to its Apply manager.
     */
    @Test
    void aJsonPatchOfManagedFieldsMovesAClientSideApplysFieldsToTheServerSideApplyManager() {
        String annotated = """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"migrated",
         "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":1}}""";
        as("demo-token")
                .queryParam("fieldManager", "kubectl-client-side-apply")
                .body(annotated)
                .post(POOLS)
                .then()
                .statusCode(201);
        var stored =
                as("demo-token").get(POOLS + "/migrated").then().statusCode(200).extract();
        String version = stored.path("metadata.resourceVersion");
        String time = stored.path("metadata.managedFields[0].time");
        String migration = """
        [{"op":"replace","path":"/metadata/managedFields","value":[{"manager":"kubectl","operation":"Apply",
          "apiVersion":"compute.coreweave.com/v1alpha1","time":"%s","fieldsType":"FieldsV1",
          "fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},
          "f:spec":{".":{},"f:instanceType":{},"f:targetNodes":{}}}}]},
         {"op":"replace","path":"/metadata/resourceVersion","value":"%s"}]""".formatted(time, version);

        as("demo-token")
                .contentType("application/json-patch+json")
                .queryParam("fieldManager", "kubectl")
                .body(migration)
                .patch(POOLS + "/migrated")
                .then()
                .statusCode(200)
                .body("metadata.managedFields.manager", contains("kubectl"))
                .body("metadata.managedFields.operation", contains("Apply"));
    }

    @Test
    void aWatchFromAListVersionReplaysLaterChangesAndAnObjectVersionIsGone() throws Exception {
        create("watched", 1);
        String version = as("demo-token")
                .get(POOLS)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getString("metadata.resourceVersion");
        as("demo-token")
                .contentType("application/merge-patch+json")
                .body("{\"metadata\":{\"labels\":{\"x\":\"y\"}}}")
                .patch(POOLS + "/watched")
                .then()
                .statusCode(200);

        List<String> lines =
                follow(POOLS + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=" + version);

        assertThat(lines).anyMatch(l -> l.contains("\"type\":\"MODIFIED\"") && l.contains("\"x\":\"y\""));
        assertThat(lines).noneMatch(l -> l.contains("\"type\":\"ADDED\""));
        assertThat(lines).anyMatch(l -> l.contains("\"type\":\"BOOKMARK\"") && l.contains("\"resourceVersion\":\"L"));
        as("demo-token")
                .queryParam("watch", "true")
                .queryParam("resourceVersion", "12345")
                .get(POOLS)
                .then()
                .statusCode(410)
                .body("reason", equalTo("Expired"));
    }

    @Test
    void anOperatorReadsEveryOrgAndWritesOnlyInItsOwn() {
        create("seen-by-operator", 1);
        as("admin-token")
                .queryParam("labelSelector", "compute.coreweave.com/org=demo")
                .get(POOLS)
                .then()
                .statusCode(200)
                .body("items.metadata.name", hasItem("seen-by-operator"))
                .body("items.metadata.labels.'compute.coreweave.com/org'", everyItem(equalTo("demo")));
        as("admin-token")
                .get(POOLS + "/seen-by-operator")
                .then()
                .statusCode(200)
                .body("metadata.labels.'compute.coreweave.com/org'", equalTo("demo"));
        as("admin-token").body(manifest("by-operator", 1)).post(POOLS).then().statusCode(201);
        as("demo-token").get(POOLS + "/by-operator").then().statusCode(404);
        as("other-token").get(POOLS + "/seen-by-operator").then().statusCode(404);
    }

    /** The lines of a watch, read until the server ends it. */
    private List<String> follow(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + path))
                .header("Authorization", "Bearer demo-token")
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        HttpResponse<java.io.InputStream> response =
                HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String text = reader.lines().reduce("", String::concat);
            // Watch events follow one another as JSON objects, as Kubernetes streams them.
            for (String event : text.split("(?<=\\})(?=\\{\"object\")")) {
                lines.add(event);
            }
        }
        return lines;
    }
}
