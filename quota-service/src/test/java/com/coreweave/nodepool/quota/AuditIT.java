package com.coreweave.nodepool.quota;

import static com.coreweave.nodepool.quota.Pools.ZONE;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.testing.KafkaResource;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Every write to the quota-service's REST API, allowed or refused, leaves one Kubernetes audit event in the audit file
 * (service-kit's {@code nodepool.audit} handler, {@code target/audit.log} in tests); a read leaves none.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class AuditIT {

    static final Path AUDIT_FILE = Path.of("target/audit.log");
    static final ObjectMapper JSON = new ObjectMapper();

    /** The audit lines naming {@code marker} (an instance type only one test uses), once there are {@code count}. */
    static List<JsonNode> audited(String marker, int count) {
        List<JsonNode> found = new ArrayList<>();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            found.clear();
            if (Files.exists(AUDIT_FILE)) {
                for (String line : Files.readAllLines(AUDIT_FILE)) {
                    if (line.contains(marker)) {
                        found.add(parse(line));
                    }
                }
            }
            return found.size() >= count;
        });
        return found;
    }

    static JsonNode parse(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new UncheckedIOException("not a JSON line: " + line, e);
        }
    }

    static String uniqueType() {
        return "audit-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void allowedPutAndDeleteAreAuditedWithTheCallersOrg() {
        String type = uniqueType();
        String path = "/admin/quotas/demo/" + ZONE + "/" + type;
        given().auth()
                .oauth2("admin-token")
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": 4}")
                .put(path)
                .then()
                .statusCode(200);
        given().auth().oauth2("admin-token").get("/admin/quotas").then().statusCode(200);
        given().auth().oauth2("admin-token").delete(path).then().statusCode(200);

        List<JsonNode> lines = audited(type, 2);

        assertThat(lines).hasSize(2);
        JsonNode put = lines.get(0);
        assertThat(put.path("kind").asText()).isEqualTo("Event");
        assertThat(put.path("apiVersion").asText()).isEqualTo("audit.k8s.io/v1");
        assertThat(put.path("level").asText()).isEqualTo("Metadata");
        assertThat(put.path("stage").asText()).isEqualTo("ResponseComplete");
        assertThat(put.path("auditID").asText()).hasSize(36);
        assertThat(put.path("requestURI").asText()).isEqualTo(path);
        assertThat(put.path("verb").asText()).isEqualTo("update");
        assertThat(put.path("user").path("username").asText())
                .as("the admin token's user, not its org")
                .isEqualTo("admin");
        assertThat(put.path("user").path("groups").toString()).contains("platform-admin", "nodepool:admins");
        assertThat(put.path("sourceIPs").get(0).asText()).isNotEmpty();
        assertThat(put.path("userAgent").asText()).isNotEmpty();
        assertThat(put.path("objectRef").path("resource").asText()).isEqualTo("quotas");
        assertThat(put.path("objectRef").path("namespace").asText()).isEqualTo("demo");
        assertThat(put.path("objectRef").path("name").asText()).isEqualTo(ZONE + "/" + type);
        assertThat(put.path("responseStatus").path("code").asInt()).isEqualTo(200);
        assertThat(put.path("annotations").path("nodepool.coreweave.com/org").asText())
                .isEqualTo("platform-admin");
        assertThat(put.path("annotations")
                        .path("nodepool.coreweave.com/service")
                        .asText())
                .isEqualTo("quota-service");
        assertThat(lines.get(1).path("verb").asText()).isEqualTo("delete");
    }

    @Test
    void refusedWritesAreAuditedToo() {
        String type = uniqueType();
        String path = "/admin/quotas/demo/" + ZONE + "/" + type;
        // Not an operator: 403, with the caller's org.
        given().auth()
                .oauth2("demo-token")
                .contentType(ContentType.JSON)
                .body("{\"maxNodes\": 4}")
                .put(path)
                .then()
                .statusCode(403);
        // No token: 401, before anyone is known.
        given().contentType(ContentType.JSON)
                .body("{\"maxNodes\": 4}")
                .put(path)
                .then()
                .statusCode(401);

        List<JsonNode> lines = audited(type, 2);

        assertThat(lines).hasSize(2);
        JsonNode forbidden = lines.get(0);
        assertThat(forbidden.path("user").path("username").asText()).isEqualTo("demo");
        assertThat(forbidden
                        .path("annotations")
                        .path("nodepool.coreweave.com/org")
                        .asText())
                .isEqualTo("demo");
        assertThat(forbidden.path("responseStatus").path("code").asInt()).isEqualTo(403);
        assertThat(forbidden.path("responseStatus").path("status").asText()).isEqualTo("Failure");
        assertThat(forbidden.path("responseStatus").path("reason").asText()).isEqualTo("Forbidden");
        JsonNode unauthorized = lines.get(1);
        assertThat(unauthorized.path("user").path("username").asText()).isEqualTo("system:anonymous");
        assertThat(unauthorized.path("responseStatus").path("code").asInt()).isEqualTo(401);
        assertThat(unauthorized.path("verb").asText()).isEqualTo("update");
    }
}
