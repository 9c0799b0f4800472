package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod a node's reported workload stands for, as kubectl drain lists and evicts it. */
class WorkloadPodsTest {

    static Node node(boolean busy, String disruptionsAllowed) {
        return Node.of(
                new Node.Meta(
                        "g1",
                        Instant.parse("2026-01-01T00:00:00Z"),
                        Map.of(Node.LABEL_NODE_POOL, "gpu-pool"),
                        disruptionsAllowed == null
                                ? null
                                : Map.of(Node.ANNOTATION_DISRUPTIONS_ALLOWED, disruptionsAllowed)),
                new Node.Spec("coreweave://g1", false, null),
                new Node.Status(
                        Node.Phase.Registered,
                        "p1",
                        1,
                        null,
                        List.of(Condition.of(Node.CONDITION_ACTIVE, busy, busy ? "Active" : "Idle", "")
                                .after(null, Instant.parse("2026-01-01T00:02:00Z")))));
    }

    @Test
    void aBusyNodeRunsOneReplicatedPodAndAnIdleOneNone() {
        assertThat(WorkloadPods.of(node(false, null), "acme")).isEmpty();
        var pod = WorkloadPods.of(node(true, null), "acme").orElseThrow();
        assertThat(pod.getMetadata().getName()).isEqualTo("workload-g1");
        assertThat(pod.getMetadata().getNamespace()).isEqualTo("default");
        assertThat(pod.getSpec().getNodeName()).isEqualTo("g1");
        assertThat(pod.getMetadata().getOwnerReferences())
                .as("drain evicts a pod a controller owns without --force")
                .singleElement()
                .satisfies(o -> assertThat(o.getController()).isTrue());
        assertThat(WorkloadPods.fields(pod)).containsEntry("spec.nodeName", "g1");
    }

    @Test
    void aBudgetOfNoDisruptionForbidsTheEviction() {
        assertThat(WorkloadPods.evictable(node(true, "0"))).isFalse();
        assertThat(WorkloadPods.evictable(node(true, "1"))).isTrue();
        assertThat(WorkloadPods.evictable(node(true, null))).isTrue();
    }
}
