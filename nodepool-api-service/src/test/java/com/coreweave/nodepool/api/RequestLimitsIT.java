package com.coreweave.nodepool.api;

import static io.restassured.RestAssured.given;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, "nothing one request does stops the platform for anyone else", over REST: bodies, manifests, patches,
 * applies and the other bodies are bounded, and each refusal is a Kubernetes Status.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class RequestLimitsIT {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";
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

    static RequestSpecification demo() {
        return given().auth().oauth2("demo-token").contentType("application/json");
    }

    static ObjectNode manifest(String name) {
        return Json.read("""
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":1}}""".formatted(name), ObjectNode.class);
    }

    static void create(String name) {
        demo().body(manifest(name).toString()).post(POOLS).then().statusCode(201);
    }

    /** A POST of {@code body} to the pools, with its length declared or (chunked) not. */
    private HttpResponse<String> post(byte[] body, boolean declared) throws Exception {
        HttpRequest.BodyPublisher publisher = declared
                ? HttpRequest.BodyPublishers.ofByteArray(body)
                : HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body));
        HttpRequest request = HttpRequest.newBuilder(URI.create(base.toString().replaceAll("/$", "") + POOLS))
                .header("Authorization", "Bearer demo-token")
                .header("Content-Type", "application/json")
                .expectContinue(true)
                .POST(publisher)
                .build();
        try (HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        }
    }

    private static void assertTooLarge(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(413);
        JsonNode status = Json.read(response.body(), JsonNode.class);
        assertThat(status.path("kind").asText()).isEqualTo("Status");
        assertThat(status.path("status").asText()).isEqualTo("Failure");
        assertThat(status.path("reason").asText()).isEqualTo("RequestEntityTooLarge");
        assertThat(status.path("code").asInt()).isEqualTo(413);
        assertThat(status.path("message").asText()).isEqualTo("Request entity too large: limit is 3145728 bytes");
    }

    /** A manifest padded with spaces to {@code size} bytes: valid JSON, whatever its size. */
    private static byte[] padded(String name, int size) {
        byte[] manifest = manifest(name).toString().getBytes(UTF_8);
        byte[] body = Arrays.copyOf(manifest, size);
        Arrays.fill(body, manifest.length, size, (byte) ' ');
        return body;
    }

    @Test
    void aBodyOverTheLimitIsRefusedWith413AndAStatusBeforeItIsRead() throws Exception {
        assertTooLarge(post(padded("limits-too-large", Limits.MAX_REQUEST_BODY_BYTES + 1), true));
    }

    @Test
    void aChunkedBodyOverTheLimitIsRefusedTheSameOnceTheLimitIsReached() throws Exception {
        assertTooLarge(post(padded("limits-chunked-too-large", Limits.MAX_REQUEST_BODY_BYTES + 1024), false));
    }

    @Test
    void bodiesUpToTheLimitAreReadWithOrWithoutTheirLength() throws Exception {
        assertThat(post(padded("limits-at-the-limit", Limits.MAX_REQUEST_BODY_BYTES), true)
                        .statusCode())
                .isEqualTo(201);
        assertThat(post(padded("limits-chunked", 4096), false).statusCode()).isEqualTo(201);
    }

    @Test
    void deeplyNestedJsonIsRefusedAsUnreadable() {
        String deep = "[".repeat(2000) + "]".repeat(2000);

        demo().body(deep)
                .post(POOLS)
                .then()
                .statusCode(400)
                .body("reason", equalTo("BadRequest"))
                .body("message", containsString("nesting depth"));
    }

    /** Jackson reads an alias as the name of its anchor: a billion laughs is read as the few words it is. */
    @Test
    void aYamlAliasBombIsReadAsTheFewWordsItIs() {
        String bomb = """
        apiVersion: compute.coreweave.com/v1alpha1
        kind: NodePool
        metadata:
          name: limits-laughs
          annotations:
            a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
            b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
            c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
            d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
            e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
            f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
            g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
            h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
            i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
        spec:
          instanceType: gd-8xa100-i128
          targetNodes: 1
        """;

        Response answer = given().auth()
                .oauth2("demo-token")
                .contentType("application/yaml")
                .body(bomb.getBytes(UTF_8))
                .post(POOLS);

        answer.then().statusCode(422).body("details.causes.field", hasItem("metadata.annotations[i]"));
        assertThat(answer.asString()).hasSizeLessThan(4096);
    }

    /** Issue 25: 31 operations copying a map into itself took the API down for every org. */
    @Test
    void theCopyBombOfIssue25Is422() {
        create("limits-patch-bomb");
        ArrayNode bomb = Json.mapper().createArrayNode();
        bomb.addObject()
                .put("op", "add")
                .put("path", "/metadata/annotations")
                .set("value", Json.mapper().createObjectNode());
        bomb.addObject().put("op", "add").put("path", "/metadata/annotations/a").put("value", "x".repeat(60 * 1024));
        for (int i = 0; i < 30; i++) {
            bomb.addObject()
                    .put("op", "copy")
                    .put("from", "/metadata/annotations")
                    .put("path", "/metadata/annotations/x" + i);
        }

        long started = System.nanoTime();
        demo().contentType("application/json-patch+json")
                .body(bomb.toString())
                .patch(POOLS + "/limits-patch-bomb")
                .then()
                .statusCode(422)
                .body("kind", equalTo("Status"))
                .body("reason", equalTo("Invalid"))
                .body("details.causes[0].message", containsString("a value cannot be copied or moved into itself"));
        System.out.printf("the patch bomb answered 422 over HTTP in %.1f ms%n", (System.nanoTime() - started) / 1e6);
    }

    @Test
    void tenThousandBadTaintsAre422WithAHundredCausesAndACount() {
        ObjectNode pool = manifest("limits-taints");
        ArrayNode taints = ((ObjectNode) pool.get("spec")).putArray("nodeTaints");
        for (int i = 0; i < 10_000; i++) {
            taints.addObject().put("key", "-bad-" + i).put("effect", "Sometimes");
        }

        long started = System.nanoTime();
        demo().body(pool.toString())
                .post(POOLS)
                .then()
                .statusCode(422)
                .body("details.causes", hasSize(Limits.MAX_CAUSES + 1))
                .body("details.causes[0].field", equalTo("spec.nodeTaints"))
                .body("details.causes[100].message", equalTo("and 19901 more"));
        System.out.printf("10,000 bad taints answered 422 over HTTP in %.1f ms%n", (System.nanoTime() - started) / 1e6);
    }

    /** Issue 25: an 8-node pool with 240 KB of nodeAnnotations was accepted, and every node carried them. */
    @Test
    void nodeAnnotationsBeyondWhatANodeMayCarryAre422() {
        ObjectNode pool = manifest("limits-node-annotations");
        ((ObjectNode) pool.get("spec")).put("targetNodes", 8);
        ObjectNode annotations = ((ObjectNode) pool.get("spec")).putObject("nodeAnnotations");
        for (int i = 0; i < 30; i++) {
            annotations.put("example.com/note-" + i, "x".repeat(8 * 1024));
        }

        demo().body(pool.toString())
                .post(POOLS)
                .then()
                .statusCode(422)
                .body("details.causes.field", equalTo(List.of("spec.nodeAnnotations")))
                .body("details.causes[0].message", containsString("16384 bytes"));
    }

    @Test
    void aPoolTooLargeToStoreIs422FromThePoolProcessor() {
        ObjectNode pool = manifest("limits-escaped");
        ((ObjectNode) pool.get("metadata")).putObject("annotations").put("note", "\u0001".repeat(50 * 1024));

        demo().body(pool.toString())
                .post(POOLS)
                .then()
                .statusCode(422)
                .body("details.causes[0].field", equalTo("metadata"))
                .body("details.causes[0].message", containsString("must have at most 262144 bytes of JSON"));
    }

    /** A merge patch or an apply cannot go around the limits: what they make is checked like any manifest. */
    @Test
    void mergePatchesAndAppliesAreCheckedAgainstTheSameLimits() {
        create("limits-patched");
        String big = "x".repeat(10 * 1024);

        demo().contentType("application/merge-patch+json")
                .body("{\"spec\":{\"nodeAnnotations\":{\"a\":\"" + big + "\",\"b\":\"" + big + "\"}}}")
                .patch(POOLS + "/limits-patched")
                .then()
                .statusCode(422)
                .body("details.causes[0].field", equalTo("spec.nodeAnnotations"));
        demo().contentType("application/merge-patch+json")
                .body("{\"spec\":{\"targetNodes\":5001}}")
                .patch(POOLS + "/limits-patched")
                .then()
                .statusCode(422)
                .body("details.causes[0].field", equalTo("spec.targetNodes"))
                .body("details.causes[0].message", equalTo("Invalid value: 5001: must be less than or equal to 5000"));

        ObjectNode config = manifest("limits-patched");
        ((ObjectNode) config.get("metadata")).putObject("annotations").put("note", "\u0001".repeat(50 * 1024));
        demo().contentType("application/apply-patch+yaml")
                .queryParam("fieldManager", "team-a")
                .body(config.toString().getBytes(UTF_8))
                .patch(POOLS + "/limits-patched")
                .then()
                .statusCode(422)
                .body("details.causes[0].field", equalTo("metadata"));
    }

    @Test
    void theScaleSubresourceTakesAtMostAsManyReplicasAsAPoolMayHave() {
        create("limits-scaled");

        demo().contentType("application/merge-patch+json")
                .body("{\"spec\":{\"replicas\":5001}}")
                .patch(POOLS + "/limits-scaled/scale")
                .then()
                .statusCode(422)
                .body("details.causes[0].field", equalTo("spec.replicas"));
    }

    @Test
    void reconfigureNamesAtMostAsManyNodesAsAPoolMayHave() {
        create("limits-reconfigure");
        ArrayNode nodes = Json.mapper().createArrayNode();
        for (int i = 0; i <= Limits.MAX_TARGET_NODES; i++) {
            nodes.add("node-" + i);
        }

        demo().body(Json.mapper().createObjectNode().set("nodes", nodes).toString())
                .post(POOLS + "/limits-reconfigure/reconfigure")
                .then()
                .statusCode(422)
                .body("details.causes[0].message", equalTo("Too many: 5001: must have at most 5000 items"));
    }
}
