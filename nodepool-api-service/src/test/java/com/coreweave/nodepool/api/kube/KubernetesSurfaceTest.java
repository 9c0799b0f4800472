package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.api.domain.Fixtures;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.NodePoolStatus;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pieces of the Kubernetes surface that come from the NodePool definition: table, OpenAPI, discovery. */
class KubernetesSurfaceTest {

    static final Instant CREATED = Instant.parse("2025-06-09T14:48:54Z");

    static NodePool healthy() {
        NodePoolSpec spec = new NodePoolSpec(
                        null, "gd-8xa100-i128", 2, null, null, null, null, null, null, null, null, null, null, null)
                .withDefaults("US-EAST-04A");
        NodePoolStatus status = new NodePoolStatus(
                1L,
                List.of(
                        Condition.of("Validated", true, "Valid", "ok"),
                        Condition.of("AtTarget", true, "TargetMet", "ok"),
                        Condition.of("Quota", true, "Under", "ok")),
                2,
                0,
                0,
                "np-1",
                null,
                null,
                new DisruptionStatus(1, null),
                null);
        return NodePool.of(new ObjectMeta("p", "u", 1L, "7", CREATED, null, null, null), spec, status);
    }

    @Test
    void theTableHasNameThenThePrinterColumnsOfTheDefinition() {
        NodePoolTable table = new NodePoolTable();

        assertThat(table.columns())
                .extracting(Table.Column::name)
                .containsExactly(
                        "Name",
                        "Instance Type",
                        "Target",
                        "Current",
                        "In Progress",
                        "Queued",
                        "Validated",
                        "At Target",
                        "Age",
                        "Zone",
                        "Compute Class",
                        "Quota",
                        "Capacity",
                        "Autoscaling",
                        "Node Profile",
                        "Out Of Service");
        assertThat(table.columns())
                .filteredOn(c -> c.priority() > 0)
                .extracting(Table.Column::name)
                .startsWith("Zone");
        assertThat(table.cells(healthy(), CREATED.plusSeconds(125)))
                .containsExactly(
                        "p",
                        "gd-8xa100-i128",
                        2L,
                        2L,
                        0L,
                        0L,
                        "Valid",
                        "TargetMet",
                        "2m5s",
                        "US-EAST-04A",
                        "default",
                        "Under",
                        null,
                        false,
                        "np-1",
                        1L);
    }

    @Test
    void theOpenApiDocumentCarriesTheReferenceDescriptionsAndTheServerSideValidation() {
        JsonNode v3 = OpenApi.v3();
        JsonNode pool = v3.at("/components/schemas/com.coreweave.compute.v1alpha1.NodePool");

        assertThat(pool.at("/properties/spec/properties/targetNodes/description")
                        .asText())
                .isEqualTo("The quantity of desired Nodes in the Node Pool");
        assertThat(pool.at("/x-kubernetes-group-version-kind/0/kind").asText()).isEqualTo("NodePool");
        assertThat(pool.at("/properties/metadata/$ref").asText())
                .isEqualTo("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
        JsonNode patch = v3.at("/paths/~1apis~1compute.coreweave.com~1v1alpha1~1nodepools~1{name}/patch");
        assertThat(patch.findValuesAsText("name")).contains("fieldValidation", "dryRun", "fieldManager");
        assertThat(Json.mapper()
                        .convertValue(patch.at("/requestBody/content"), Map.class)
                        .keySet())
                .doesNotContain("application/strategic-merge-patch+json")
                .contains("application/apply-patch+yaml");
        assertThat(OpenApi.v3Index()
                        .at("/paths/apis~1compute.coreweave.com~1v1alpha1/serverRelativeURL")
                        .asText())
                .startsWith("/openapi/v3/apis/compute.coreweave.com/v1alpha1?hash=");
        assertThat(OpenApi.v2().at("/definitions/com.coreweave.compute.v1alpha1.NodePool/properties/spec/required"))
                .hasSize(2);
    }

    /** What kubectl explain and --validate read: every string and list a client writes has its bound. */
    @Test
    void theOpenApiDocumentsShowTheBoundsOfEveryFieldAClientWrites() {
        for (JsonNode definitions :
                List.of(OpenApi.v3().at("/components/schemas"), OpenApi.v2().at("/definitions"))) {
            JsonNode spec = definitions.at("/com.coreweave.compute.v1alpha1.NodePool/properties/spec");
            for (String count : List.of("targetNodes", "minNodes", "maxNodes")) {
                assertThat(spec.at("/properties/" + count + "/maximum").intValue())
                        .isEqualTo(Limits.MAX_TARGET_NODES);
            }
            assertThat(spec.at("/properties/nodeAnnotations/additionalProperties/maxLength")
                            .intValue())
                    .isEqualTo(Limits.MAX_NODE_METADATA_BYTES);
            assertThat(definitions
                            .at("/io.k8s.api.autoscaling.v1.Scale/properties/spec/properties/replicas/maximum")
                            .intValue())
                    .isEqualTo(Limits.MAX_TARGET_NODES);
            List<String> unbounded = new ArrayList<>();
            unbounded(spec, "spec", unbounded);
            assertThat(unbounded).isEmpty();
        }
    }

    /** The strings without a maxLength and the lists without a maxItems under {@code schema}. */
    private static void unbounded(JsonNode schema, String path, List<String> found) {
        String type = schema.path("type").asText();
        if (type.equals("string") && !schema.has("maxLength") || type.equals("array") && !schema.has("maxItems")) {
            found.add(path);
        }
        schema.path("properties")
                .fields()
                .forEachRemaining(p -> unbounded(p.getValue(), path + "." + p.getKey(), found));
        if (schema.has("items")) {
            unbounded(schema.get("items"), path + "[]", found);
        }
        if (schema.path("additionalProperties").isObject()) {
            unbounded(schema.get("additionalProperties"), path + "[]", found);
        }
    }

    @Test
    void discoveryServesThePoolsClusterScopedWithTheirScaleSubresource() {
        var resources = Discovery.nodePools().getResources();

        assertThat(resources).extracting(r -> r.getName()).containsExactly("nodepools", "nodepools/scale");
        assertThat(resources.get(0).getNamespaced()).isFalse();
        assertThat(resources.get(0).getShortNames()).containsExactly("np");
        assertThat(resources.get(1).getGroup()).isEqualTo("autoscaling");
    }

    @Test
    void aJsonPatchAppliesOrSaysWhyNot() {
        JsonNode target = Json.mapper().valueToTree(healthy().withStatus(null));

        JsonNode patched = JsonPatch.apply(
                target, Fixtures.anyJson("[{\"op\":\"replace\",\"path\":\"/spec/targetNodes\",\"value\":5}]"));

        assertThat(patched.at("/spec/targetNodes").intValue()).isEqualTo(5);
        assertThatThrownBy(() -> JsonPatch.apply(
                        target, Fixtures.anyJson("[{\"op\":\"test\",\"path\":\"/spec/targetNodes\",\"value\":9}]")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JsonPatch.apply(target, Fixtures.anyJson("{}")))
                .hasMessageContaining("list of operations");
    }
}
