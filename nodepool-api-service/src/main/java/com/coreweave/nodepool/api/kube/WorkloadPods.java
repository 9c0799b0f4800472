package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The pod a node's reported workload stands for: a node reported busy ({@code CWActive=True}) runs one,
 * {@code workload-<node>} in namespace {@code default}, from when it was reported busy; an idle node runs none. It is
 * what {@code kubectl drain} lists and evicts, and {@code describe node} shows; its owner is a ReplicaSet, so a drain
 * needs no {@code --force} for it.
 */
public final class WorkloadPods {

    public static final String NAMESPACE = "default";
    public static final String PREFIX = "workload-";

    private WorkloadPods() {}

    /** The pod running on {@code node} of {@code org}, if its workload is busy. */
    public static Optional<Pod> of(Node node, String org) {
        if (!node.isActive()) {
            return Optional.empty();
        }
        Condition active = node.status().conditions().stream()
                .filter(c -> c.type().equals(Node.CONDITION_ACTIVE))
                .findFirst()
                .orElseThrow();
        String since = CoreNodes.time(active.lastTransitionTime());
        String name = PREFIX + node.name();
        // A workload reported busy again is another pod: what drain's wait for the evicted one tells apart.
        String uid = UUID.nameUUIDFromBytes(
                        (org + "/" + node.name() + "/workload/" + since).getBytes(StandardCharsets.UTF_8))
                .toString();
        OwnerReference owner = new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName(name)
                .withUid(UUID.nameUUIDFromBytes((org + "/" + name).getBytes(StandardCharsets.UTF_8))
                        .toString())
                .withController(true)
                .build();
        Map<String, String> annotations = new LinkedHashMap<>();
        String budget = node.metadata().annotations() == null
                ? null
                : node.metadata().annotations().get(Node.ANNOTATION_DISRUPTIONS_ALLOWED);
        if (budget != null) {
            annotations.put(Node.ANNOTATION_DISRUPTIONS_ALLOWED, budget);
        }
        return Optional.of(new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NAMESPACE)
                .withUid(uid)
                .withCreationTimestamp(since)
                .withLabels(Map.of("app", "workload", Node.LABEL_NODE_POOL, pool(node)))
                .withAnnotations(annotations.isEmpty() ? null : annotations)
                .withOwnerReferences(owner)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node.name())
                .addNewContainer()
                .withName("workload")
                .withImage("workload")
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withStartTime(since)
                .endStatus()
                .build());
    }

    /**
     * Whether the workload's disruption budget allows evicting its pod now: its last report said how many disruptions
     * it allows, and 0 forbids any; a workload that reported no budget may be evicted.
     */
    public static boolean evictable(Node node) {
        var annotations = node.metadata().annotations();
        String budget = annotations == null ? null : annotations.get(Node.ANNOTATION_DISRUPTIONS_ALLOWED);
        return budget == null || !budget.equals("0");
    }

    /** The fields a pod list selects by, as {@code drain} and {@code describe node} ask. */
    public static Map<String, String> fields(Pod pod) {
        return Map.of(
                "metadata.name", pod.getMetadata().getName(),
                "metadata.namespace", pod.getMetadata().getNamespace(),
                "spec.nodeName", pod.getSpec().getNodeName(),
                "status.phase", pod.getStatus().getPhase());
    }

    private static String pool(Node node) {
        var labels = node.metadata().labels();
        return labels == null ? "" : labels.getOrDefault(Node.LABEL_NODE_POOL, "");
    }
}
