package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What a user's kubectl may change on a pool's node, as the patches kubectl sends make it. */
class NodeEditsTest {

    static final String STRATEGIC = "application/strategic-merge-patch+json";
    static final String MERGE = "application/merge-patch+json";
    static final NodeEdits.PoolMarks POOL =
            new NodeEdits.PoolMarks(Set.of("tier"), Set.of("owner"), Set.of("dedicated"));

    static Node node(boolean cordoned, Map<String, String> userLabels, List<Taint> taints) {
        Map<String, String> labels = new TreeMap<>(
                Map.of(Node.LABEL_NODE_POOL, "gpu-pool", Node.LABEL_INSTANCE_TYPE, "gd-8xa100-i128", "tier", "gold"));
        labels.putAll(userLabels);
        return Node.of(
                new Node.Meta("g1", Instant.parse("2026-01-01T00:00:00Z"), labels, Map.of("owner", "ml")),
                new Node.Spec("coreweave://g1", cordoned, taints),
                new Node.Status(
                        Node.Phase.Registered,
                        "p1",
                        1,
                        Instant.parse("2026-01-01T00:01:00Z"),
                        List.of(Condition.of(Node.CONDITION_ACTIVE, false, "Idle", "idle"))));
    }

    static JsonNode core(Node node) {
        return Json.mapper().valueToTree(CoreNodes.of(node, "acme", null));
    }

    static NodeEdits.Edit edit(Node node, String patch, String type) {
        JsonNode current = core(node);
        return NodeEdits.between(current, NodePatches.apply(current, patch, type, "g1"), POOL, "g1");
    }

    static List<StatusCause> refusal(Node node, String patch, String type) {
        JsonNode current = core(node);
        try {
            NodeEdits.between(current, NodePatches.apply(current, patch, type, "g1"), POOL, "g1");
        } catch (ApiException e) {
            assertThat(e.status().getCode()).isEqualTo(422);
            return e.status().getDetails().getCauses();
        }
        throw new AssertionError("the patch was not refused");
    }

    @Test
    void cordonAndUncordonAsKubectlSendsThem() {
        Node idle = node(false, Map.of(), null);
        assertThat(edit(idle, "{\"spec\":{\"unschedulable\":true}}", STRATEGIC).unschedulable())
                .isTrue();
        assertThat(edit(node(true, Map.of(), null), "{\"spec\":{\"unschedulable\":null}}", STRATEGIC)
                        .unschedulable())
                .isFalse();
        assertThat(edit(idle, "{\"spec\":{\"unschedulable\":null}}", STRATEGIC).empty())
                .as("uncordoning a schedulable node changes nothing")
                .isTrue();
    }

    @Test
    void labelAndAnnotateSetAndRemoveTheUsersKeys() {
        NodeEdits.Edit edit = edit(
                node(false, Map.of("old", "x"), null),
                "{\"metadata\":{\"labels\":{\"team\":\"a\",\"old\":null},\"annotations\":{\"note\":\"hi\"}}}",
                MERGE);
        assertThat(edit.labels()).containsExactly(Map.entry("team", "a"));
        assertThat(edit.removedLabels()).containsExactly("old");
        assertThat(edit.annotations()).containsExactly(Map.entry("note", "hi"));
        assertThat(edit.unschedulable()).isNull();
        assertThat(edit.taints()).isNull();
    }

    @Test
    void thePlatformsAndThePoolsKeysAreRefusedNamingTheField() {
        Node node = node(false, Map.of(), null);
        assertThat(refusal(node, "{\"metadata\":{\"labels\":{\"compute.coreweave.com/node-pool\":\"other\"}}}", MERGE))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.getField()).isEqualTo("metadata.labels[compute.coreweave.com/node-pool]");
                    assertThat(c.getMessage()).contains("set by the platform");
                });
        assertThat(refusal(node, "{\"metadata\":{\"labels\":{\"tier\":null}}}", MERGE))
                .singleElement()
                .satisfies(c -> assertThat(c.getMessage()).contains("spec.nodeLabels"));
        assertThat(refusal(
                        node, "{\"metadata\":{\"annotations\":{\"compute.coreweave.com/cordoned-by\":\"x\"}}}", MERGE))
                .singleElement()
                .satisfies(c -> assertThat(c.getField()).contains("compute.coreweave.com/cordoned-by"));
        assertThat(refusal(node, "{\"metadata\":{\"labels\":{\"Bad Key\":\"v\"}}}", MERGE))
                .singleElement()
                .satisfies(c -> assertThat(c.getField()).isEqualTo("metadata.labels[Bad Key]"));
    }

    @Test
    void aUserHoldsANodeWithTheDoNotDisruptAnnotationTrueOrFalseOnly() {
        Node node = node(false, Map.of(), null);
        NodeEdits.Edit held = edit(
                node, "{\"metadata\":{\"annotations\":{\"compute.coreweave.com/do-not-disrupt\":\"true\"}}}", MERGE);
        assertThat(held.annotations()).containsExactly(Map.entry(Node.ANNOTATION_DO_NOT_DISRUPT, "true"));
        assertThat(refusal(
                        node,
                        "{\"metadata\":{\"annotations\":{\"compute.coreweave.com/do-not-disrupt\":\"yes\"}}}",
                        MERGE))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.getField()).isEqualTo("metadata.annotations[compute.coreweave.com/do-not-disrupt]");
                    assertThat(c.getMessage()).isEqualTo("Invalid value: \"yes\": must be \"true\" or \"false\"");
                });
    }

    @Test
    void onlyTheUsersFieldsMayChange() {
        assertThat(refusal(node(false, Map.of(), null), "{\"spec\":{\"providerID\":\"elsewhere\"}}", STRATEGIC))
                .singleElement()
                .satisfies(c -> assertThat(c.getField()).isEqualTo("spec.providerID"));
    }

    @Test
    void taintsAsKubectlTaintSendsThemTheWholeList() {
        Taint unhealthy = new Taint(Node.TAINT_UNHEALTHY, "Xid79", "NoSchedule");
        Taint pools = new Taint("dedicated", "ml", "NoExecute");
        Node node = node(false, Map.of(), List.of(unhealthy, pools));
        String added = "{\"spec\":{\"taints\":[" + "{\"key\":\"compute.coreweave.com/unhealthy\",\"value\":\"Xid79\","
                + "\"effect\":\"NoSchedule\"},{\"key\":\"dedicated\",\"value\":\"ml\",\"effect\":\"NoExecute\"},"
                + "{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]}}";

        assertThat(edit(node, added, STRATEGIC).taints()).containsExactly(new Taint("k", "v", "NoSchedule"));
        assertThat(refusal(node, "{\"spec\":{\"taints\":null}}", STRATEGIC))
                .as("removing every taint would remove the platform's and the pool's")
                .hasSize(2)
                .allSatisfy(c -> assertThat(c.getField()).isEqualTo("spec.taints"));
        assertThat(refusal(
                        node(false, Map.of(), null),
                        "{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"Sometimes\"}]}}",
                        STRATEGIC))
                .singleElement()
                .satisfies(c -> assertThat(c.getField()).isEqualTo("spec.taints[0].effect"));
    }

    @Test
    void aStaleOrUnknownPatchIsRefusedClearly() {
        JsonNode current = core(node(false, Map.of(), null));
        assertThatThrownBy(() -> NodePatches.apply(current, "{}", "application/apply-patch+yaml", "g1"))
                .isInstanceOfSatisfying(
                        ApiException.class,
                        e -> assertThat(e.status().getCode()).isEqualTo(415));
        assertThatThrownBy(() -> NodePatches.apply(
                        current, "{\"spec\":{\"taints\":[{\"$patch\":\"delete\"}]}}", STRATEGIC, "g1"))
                .isInstanceOfSatisfying(
                        ApiException.class,
                        e -> assertThat(e.status().getMessage()).contains("$patch"));
    }

    @Test
    void theResourceVersionChangesWithTheNode() {
        String before = CoreNodes.resourceVersion("acme", node(false, Map.of(), null));
        assertThat(CoreNodes.resourceVersion("acme", node(false, Map.of(), null)))
                .isEqualTo(before);
        assertThat(CoreNodes.resourceVersion("acme", node(true, Map.of(), null)))
                .isNotEqualTo(before);
    }

    @Test
    void thePlatformOwnsItsDomainsAndKubernetesButNotNodeRoles() {
        assertThat(NodeKeys.platformLabel("compute.coreweave.com/node-pool")).isTrue();
        assertThat(NodeKeys.platformLabel("qos.coreweave.cloud/pending-preemption"))
                .isTrue();
        assertThat(NodeKeys.platformLabel("topology.kubernetes.io/zone")).isTrue();
        assertThat(NodeKeys.platformLabel("kubernetes.io/hostname")).isTrue();
        assertThat(NodeKeys.platformLabel("node-role.kubernetes.io/gpu")).isFalse();
        assertThat(NodeKeys.platformLabel("team")).isFalse();
        assertThat(NodeKeys.platformLabel("example.com/team")).isFalse();
        assertThat(NodeKeys.platformAnnotation("kubectl.kubernetes.io/last-applied-configuration"))
                .isFalse();
        assertThat(NodeKeys.platformAnnotation(Node.ANNOTATION_DO_NOT_DISRUPT)).isFalse();
        assertThat(NodeKeys.platformLabel(Node.ANNOTATION_DO_NOT_DISRUPT))
                .as("a label of that name stays the platform's")
                .isTrue();
    }
}
