package com.coreweave.nodepool.kit.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The line as written: one line of JSON with Kubernetes' field names, parseable by any JSON reader. */
class AuditLogTest {

    @Test
    void lineIsOneJsonObjectWithKubernetesFieldNames() throws Exception {
        AuditEvent event = AuditEvents.of(new AuditEvents.HttpWrite(
                "4f0c6f5e-0000-4000-8000-000000000001",
                new Caller("demo", false),
                "PUT",
                "/apis/compute.coreweave.com/v1alpha1/nodepools/p1/scale",
                409,
                Statuses.failure(409, "Conflict", "the object has been modified\nplease retry", null),
                null,
                List.of("127.0.0.1"),
                "kubectl/v1.33.0",
                Instant.parse("2026-05-01T12:00:00Z"),
                Instant.parse("2026-05-01T12:00:00.015Z"),
                "nodepool-api-service"));

        String line = AuditLog.line(event);

        assertThat(line).doesNotContain("\n").startsWith("{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\"");
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.fieldNames())
                .toIterable()
                .containsExactly(
                        "kind",
                        "apiVersion",
                        "level",
                        "auditID",
                        "stage",
                        "requestURI",
                        "verb",
                        "user",
                        "sourceIPs",
                        "userAgent",
                        "objectRef",
                        "responseStatus",
                        "requestReceivedTimestamp",
                        "stageTimestamp",
                        "annotations");
        assertThat(json.path("level").asText()).isEqualTo("Metadata");
        assertThat(json.path("verb").asText()).isEqualTo("update");
        assertThat(json.path("user").path("username").asText()).isEqualTo("demo");
        assertThat(json.path("user").path("groups").get(0).asText()).isEqualTo("demo");
        assertThat(json.path("sourceIPs").get(0).asText()).isEqualTo("127.0.0.1");
        assertThat(json.path("objectRef").fieldNames())
                .toIterable()
                .containsExactly("resource", "name", "apiGroup", "apiVersion", "subresource");
        assertThat(json.path("objectRef").path("subresource").asText()).isEqualTo("scale");
        assertThat(json.path("responseStatus").path("code").asInt()).isEqualTo(409);
        assertThat(json.path("responseStatus").path("status").asText()).isEqualTo("Failure");
        assertThat(json.path("responseStatus").path("reason").asText()).isEqualTo("Conflict");
        assertThat(json.path("responseStatus").path("message").asText()).contains("\nplease retry");
        assertThat(json.path("requestReceivedTimestamp").asText()).isEqualTo("2026-05-01T12:00:00.000000Z");
        assertThat(json.path("annotations").path("nodepool.coreweave.com/org").asText())
                .isEqualTo("demo");
    }

    @Test
    void absentFieldsAreLeftOut() throws Exception {
        AuditEvent event = AuditEvents.of(new AuditEvents.HttpWrite(
                "id",
                null,
                "POST",
                "/admin/node-alerts",
                401,
                null,
                null,
                null,
                null,
                Instant.EPOCH,
                Instant.EPOCH,
                null));
        JsonNode json = new ObjectMapper().readTree(AuditLog.line(event));
        assertThat(json.has("sourceIPs")).isFalse();
        assertThat(json.has("userAgent")).isFalse();
        assertThat(json.path("objectRef").has("name")).isFalse();
        assertThat(json.path("responseStatus").toString()).isEqualTo("{\"code\":401}");
    }
}
