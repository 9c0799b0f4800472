package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A pool's node as the core {@code v1} Node that {@code kubectl get nodes} and {@code describe node} read: its labels,
 * annotations, taints and cordon ({@code spec.unschedulable}), a {@code Ready} condition from its phase beside the
 * reference's {@code CWActive}, {@code CWRegistered} and {@code CWNodeRemoval}, and the machine's GPUs, cores and
 * memory as capacity.
 */
public final class CoreNodes {

    private CoreNodes() {}

    /**
     * A node's uid: its org, name and assignment time, so a machine that comes back to a pool is another object (what
     * kubectl delete's wait tells a replacement by).
     */
    static String uid(String org, Node node) {
        return UUID.nameUUIDFromBytes(
                        (org + "/" + node.name() + "/" + node.metadata().creationTimestamp())
                                .getBytes(StandardCharsets.UTF_8))
                .toString();
    }

    /**
     * A node's resourceVersion: a digest of the node as published, so it changes whenever the node does and a patch
     * made against an older node is told apart (409). A node that goes back to an earlier state gets its earlier
     * version, which is harmless for a precondition: the patch is then made against what it was computed from.
     */
    public static String resourceVersion(String org, Node node) {
        byte[] published = Json.bytes(node);
        byte[] owner = org.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[owner.length + published.length];
        System.arraycopy(owner, 0, all, 0, owner.length);
        System.arraycopy(published, 0, all, owner.length, published.length);
        return Long.toString(UUID.nameUUIDFromBytes(all).getMostSignificantBits() & Long.MAX_VALUE);
    }

    public static io.fabric8.kubernetes.api.model.Node of(Node node, String org, InstanceType type) {
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        if (type != null) {
            capacity.put("cpu", new Quantity(Integer.toString(type.cpuCores())));
            capacity.put("memory", new Quantity(type.memoryGiB() + "Gi"));
            capacity.put("nvidia.com/gpu", new Quantity(Integer.toString(type.gpuCount())));
        }
        List<Taint> taints = node.spec().taints() == null
                ? List.of()
                : node.spec().taints().stream()
                        .map(t -> new Taint(t.effect(), t.key(), null, t.value()))
                        .toList();
        return new NodeBuilder()
                .withNewMetadata()
                .withName(node.name())
                .withUid(uid(org, node))
                .withResourceVersion(resourceVersion(org, node))
                .withCreationTimestamp(time(node.metadata().creationTimestamp()))
                .withLabels(node.metadata().labels())
                .withAnnotations(node.metadata().annotations())
                .endMetadata()
                .withNewSpec()
                .withProviderID(node.spec().providerID())
                .withUnschedulable(node.spec().unschedulable() ? Boolean.TRUE : null)
                .withTaints(taints.isEmpty() ? null : taints)
                .endSpec()
                .withNewStatus()
                .withConditions(conditions(node))
                .withCapacity(capacity.isEmpty() ? null : capacity)
                .withAllocatable(capacity.isEmpty() ? null : capacity)
                .withNewNodeInfo()
                .withOsImage(Objects.requireNonNullElse(node.status().nodeProfile(), ""))
                .endNodeInfo()
                .endStatus()
                .build();
    }

    /** Whether a user holds the node's cordon ({@code kubectl cordon}). */
    public static boolean cordonedByUser(Node node) {
        String by = cordonedBy(node);
        return by != null && by.contains("user");
    }

    /** Whether the platform holds the node's cordon: a remediation, a drain or a preemption. */
    public static boolean cordonedByPlatform(Node node) {
        String by = cordonedBy(node);
        return node.spec().unschedulable() && (by == null || by.contains("platform"));
    }

    private static String cordonedBy(Node node) {
        var annotations = node.metadata().annotations();
        return annotations == null ? null : annotations.get(Node.ANNOTATION_CORDONED_BY);
    }

    /** Whether the node is Ready (registered, possibly draining), as kubectl's STATUS column says it. */
    public static boolean ready(Node node) {
        return node.phase() == Node.Phase.Registered || node.phase() == Node.Phase.Draining;
    }

    /**
     * Ready first, then the node's own conditions. The provisioner's Ready condition, when the node has one, is shown
     * as it is: its time is when it last changed (a reboot's start, not the registration), as a kubelet's is.
     */
    private static List<NodeCondition> conditions(Node node) {
        List<Condition> own =
                node.status().conditions() == null ? List.of() : node.status().conditions();
        List<NodeCondition> conditions = new ArrayList<>();
        if (own.stream().noneMatch(c -> c.type().equals(Node.CONDITION_READY))) {
            conditions.add(derivedReady(node));
        }
        own.stream()
                .sorted(Comparator.comparing(c -> !c.type().equals(Node.CONDITION_READY)))
                .forEach(c -> conditions.add(
                        condition(c.type(), c.status(), c.reason(), c.message(), c.lastTransitionTime())));
        return conditions;
    }

    /** Ready as the node's phase says, since its registration (or its assignment), for a node without its own. */
    private static NodeCondition derivedReady(Node node) {
        Instant since = node.status().registeredAt() != null
                ? node.status().registeredAt()
                : node.metadata().creationTimestamp();
        return ready(node)
                ? condition("Ready", "True", "KubeletReady", "node is registered and ready", since)
                : condition(
                        "Ready",
                        "False",
                        "KubeletNotReady",
                        "node is " + node.phase().name().toLowerCase(),
                        since);
    }

    private static NodeCondition condition(String type, String status, String reason, String message, Instant at) {
        return new NodeCondition(time(at), time(at), message, reason, status, type);
    }

    static String time(Instant at) {
        return at == null
                ? null
                : at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }
}
