package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A node of a pool in the shape of a Kubernetes Node: labels (the pool's {@code nodeLabels} plus the standard ones),
 * annotations, taints, cordon state ({@code spec.unschedulable}) and the node conditions {@code CWActive},
 * {@code CWRegistered}, {@code CWNodeRemoval}, Kubernetes' {@code Ready}, and one per class of node alert the node has
 * had ({@code GPUProblem}, {@code NVLinkProblem}, ...: True while an alert of that class is active).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"apiVersion", "kind", "metadata", "spec", "status"})
public record Node(String apiVersion, String kind, Meta metadata, Spec spec, Status status) {

    public static final String LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type";
    public static final String LABEL_ZONE = "topology.kubernetes.io/zone";
    public static final String LABEL_REGION = "topology.kubernetes.io/region";
    public static final String LABEL_HOSTNAME = "kubernetes.io/hostname";
    public static final String LABEL_NODE_POOL = "compute.coreweave.com/node-pool";
    public static final String LABEL_COMPUTE_CLASS = "compute.coreweave.com/compute-class";
    public static final String LABEL_PENDING_PREEMPTION = "qos.coreweave.cloud/pending-preemption";
    public static final String LABEL_EVICTED_AT = "qos.coreweave.cloud/evicted-at";

    /**
     * The disruptions the running workload's PodDisruptionBudget allows now, as its last activity report said: shown
     * while the node is busy and a budget was reported; what an eviction ({@code kubectl drain}) is checked against.
     */
    public static final String ANNOTATION_DISRUPTIONS_ALLOWED = "compute.coreweave.com/disruptions-allowed";

    /**
     * Who holds a node's cordon while a user cordoned it: {@code user}, or {@code platform,user} when the platform
     * cordoned it too (a remediation, a drain, a preemption), so that a user's uncordon leaves the node cordoned.
     */
    public static final String ANNOTATION_CORDONED_BY = "compute.coreweave.com/cordoned-by";

    /**
     * A user's hold on a node ({@code kubectl annotate node <n> compute.coreweave.com/do-not-disrupt=true}, Karpenter's
     * {@code karpenter.sh/do-not-disrupt}): while it is {@code "true"} no voluntary disruption picks the node. The one
     * key under the platform's domain a user sets on a node.
     */
    public static final String ANNOTATION_DO_NOT_DISRUPT = "compute.coreweave.com/do-not-disrupt";

    public static final String CONDITION_ACTIVE = "CWActive";
    public static final String CONDITION_REGISTERED = "CWRegistered";
    public static final String CONDITION_REMOVAL = "CWNodeRemoval";
    public static final String CONDITION_READY = "Ready";

    /** The taint node-health remediation sets on a node it takes out of scheduling; its value names the alert. */
    public static final String TAINT_UNHEALTHY = "compute.coreweave.com/unhealthy";

    /** Where a node is in its life: booting after assignment, registered in the cluster, on its way out, gone. */
    public enum Phase {
        Booting,
        Registered,
        Draining,
        Removed,
        Failed
    }

    public static Node of(Meta metadata, Spec spec, Status status) {
        return new Node("v1", "Node", metadata, spec, status);
    }

    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    @JsonPropertyOrder({"name", "creationTimestamp", "labels", "annotations"})
    public record Meta(
            String name, Instant creationTimestamp, Map<String, String> labels, Map<String, String> annotations) {}

    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    @JsonPropertyOrder({"providerID", "unschedulable", "taints"})
    public record Spec(String providerID, boolean unschedulable, List<Taint> taints) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"phase", "nodeProfile", "bootAttempt", "registeredAt", "conditions"})
    public record Status(
            Phase phase, String nodeProfile, Integer bootAttempt, Instant registeredAt, List<Condition> conditions) {}

    @JsonIgnore
    public String name() {
        return metadata.name();
    }

    @JsonIgnore
    public Phase phase() {
        return status.phase();
    }

    @JsonIgnore
    public boolean isActive() {
        return status.conditions() != null
                && status.conditions().stream().anyMatch(c -> c.type().equals(CONDITION_ACTIVE) && c.isTrue());
    }

    public Node withMetadata(Meta meta) {
        return new Node(apiVersion, kind, meta, spec, status);
    }

    public Node withSpec(Spec newSpec) {
        return new Node(apiVersion, kind, metadata, newSpec, status);
    }

    public Node withStatus(Status newStatus) {
        return new Node(apiVersion, kind, metadata, spec, newStatus);
    }
}
