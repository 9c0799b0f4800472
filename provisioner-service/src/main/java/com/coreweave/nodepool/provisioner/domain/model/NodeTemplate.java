package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Shapes a pool's nodes as Kubernetes Nodes: the pool's labels, annotations and taints plus the standard labels a node
 * carries, cordon state and the health taint, the node conditions {@code CWActive}, {@code CWRegistered},
 * {@code CWNodeRemoval} and {@code Ready}, and one condition per class of alert the node has had (a condition keeps its
 * transition time while its status stays).
 */
public final class NodeTemplate {

    public static final String IDLE = "Idle";
    public static final String ACTIVE = "Active";
    /** {@code CWActive}'s reason while the running workload asks not to be disrupted. */
    public static final String ACTIVE_HELD = "ActiveDoNotDisrupt";

    public static final String BOOTING = "Booting";
    public static final String REGISTERED = "Registered";
    public static final String REGISTRATION_FAILED = "RegistrationFailed";
    public static final String NOT_PENDING_REMOVAL = "NotPendingRemoval";
    public static final String KUBELET_READY = "KubeletReady";
    public static final String KUBELET_NOT_READY = "KubeletNotReady";

    /** Labels the node itself owns (set by the preemption timeline), kept when the pool's labels are applied. */
    private static final List<String> NODE_OWNED_LABELS = List.of(Node.LABEL_PENDING_PREEMPTION, Node.LABEL_EVICTED_AT);

    private NodeTemplate() {}

    /** A granted machine that starts its first boot with the pool's node configuration. */
    public static Node assigned(PoolRef ref, NodePoolSpec spec, String machine, String profile, Instant now) {
        var meta = new Node.Meta(machine, now, labels(ref, spec, machine, Map.of()), annotations(spec));
        var nodeSpec = new Node.Spec(providerId(ref, machine), false, taints(spec));
        List<Condition> conditions = List.of(
                condition(Node.CONDITION_ACTIVE, false, IDLE, "No workload is running.", null, now),
                condition(Node.CONDITION_REGISTERED, false, BOOTING, bootMessage(1, profile), null, now),
                condition(Node.CONDITION_REMOVAL, false, NOT_PENDING_REMOVAL, "", null, now),
                condition(Node.CONDITION_READY, false, KUBELET_NOT_READY, "Node is booting.", null, now));
        return Node.of(meta, nodeSpec, new Node.Status(Node.Phase.Booting, profile, 1, null, conditions));
    }

    /** What is released for a grant that never became a node: not needed, or not deliverable. */
    public static Node declined(
            PoolRef ref, NodePoolSpec spec, String machine, RemovalCause cause, String message, Instant now) {
        var meta = new Node.Meta(machine, now, labels(ref, spec, machine, Map.of()), null);
        List<Condition> conditions = List.of(condition(Node.CONDITION_REMOVAL, true, cause.name(), message, null, now));
        return Node.of(
                meta,
                new Node.Spec(providerId(ref, machine), false, null),
                new Node.Status(Node.Phase.Removed, null, null, null, conditions));
    }

    public static Node registered(Node node, Instant now) {
        var status = node.status();
        Node next = node.withStatus(new Node.Status(
                Node.Phase.Registered, status.nodeProfile(), status.bootAttempt(), now, status.conditions()));
        next = withCondition(next, Node.CONDITION_REGISTERED, true, REGISTERED, "Node joined the cluster.", now);
        return withCondition(next, Node.CONDITION_READY, true, KUBELET_READY, "kubelet is posting ready status.", now);
    }

    public static Node failed(Node node, String message, Instant now) {
        var status = node.status();
        Node next = node.withStatus(new Node.Status(
                Node.Phase.Failed, status.nodeProfile(), status.bootAttempt(), null, status.conditions()));
        next = withCondition(next, Node.CONDITION_REGISTERED, false, REGISTRATION_FAILED, message, now);
        return withCondition(next, Node.CONDITION_READY, false, KUBELET_NOT_READY, message, now);
    }

    /**
     * The next boot attempt of a node, with {@code profile}: after a failed boot, or a reboot in place (reconfigure or
     * health). A node rebooting in place keeps when it registered: it stays a node of the cluster, as a rebooting
     * Kubernetes node does, and the api-service counts it towards the pool's target.
     */
    public static Node rebooting(Node node, String profile, Instant now) {
        int attempt = node.status().bootAttempt() == null ? 1 : node.status().bootAttempt() + 1;
        Node next = node.withStatus(new Node.Status(
                Node.Phase.Booting,
                profile,
                attempt,
                node.status().registeredAt(),
                node.status().conditions()));
        next = withCondition(next, Node.CONDITION_REGISTERED, false, BOOTING, bootMessage(attempt, profile), now);
        return withCondition(next, Node.CONDITION_READY, false, KUBELET_NOT_READY, "Node is rebooting.", now);
    }

    public static Node withActivity(Node node, boolean active, Instant now) {
        return withActivity(node, active, false, now);
    }

    /** Busy or idle; a busy node's workload may hold it against voluntary disruptions ({@code held}). */
    public static Node withActivity(Node node, boolean active, boolean held, Instant now) {
        if (held && active) {
            return withCondition(
                    node,
                    Node.CONDITION_ACTIVE,
                    true,
                    ACTIVE_HELD,
                    "A workload is running and asks not to be disrupted.",
                    now);
        }
        return active
                ? withCondition(node, Node.CONDITION_ACTIVE, true, ACTIVE, "A workload is running.", now)
                : withCondition(node, Node.CONDITION_ACTIVE, false, IDLE, "No workload is running.", now);
    }

    /** Cordoned and pending removal; {@code draining} also moves it to phase Draining (only a registered node). */
    public static Node leaving(Node node, RemovalCause cause, String message, boolean draining, Instant now) {
        var status = node.status();
        Node.Phase phase = draining && status.phase() == Node.Phase.Registered ? Node.Phase.Draining : status.phase();
        Node next = node.withSpec(new Node.Spec(
                        node.spec().providerID(), true, node.spec().taints()))
                .withStatus(new Node.Status(
                        phase, status.nodeProfile(), status.bootAttempt(), status.registeredAt(), status.conditions()));
        return withCondition(next, Node.CONDITION_REMOVAL, true, cause.name(), message, now);
    }

    /** Cordoned and draining in place (for a reboot): it does not leave the pool. */
    public static Node draining(Node node) {
        var status = node.status();
        Node.Phase phase = status.phase() == Node.Phase.Registered ? Node.Phase.Draining : status.phase();
        return node.withSpec(new Node.Spec(
                        node.spec().providerID(), true, node.spec().taints()))
                .withStatus(new Node.Status(
                        phase, status.nodeProfile(), status.bootAttempt(), status.registeredAt(), status.conditions()));
    }

    /** Back in service: uncordoned, no longer pending removal. */
    public static Node staying(Node node, Instant now) {
        var status = node.status();
        Node.Phase phase = status.phase() == Node.Phase.Draining ? Node.Phase.Registered : status.phase();
        Node next = node.withSpec(new Node.Spec(
                        node.spec().providerID(), false, node.spec().taints()))
                .withStatus(new Node.Status(
                        phase, status.nodeProfile(), status.bootAttempt(), status.registeredAt(), status.conditions()));
        return withCondition(next, Node.CONDITION_REMOVAL, false, NOT_PENDING_REMOVAL, "", now);
    }

    /** The node as it leaves the pool. */
    public static Node removed(Node node, RemovalCause cause, String message, Instant now) {
        var status = node.status();
        Node next = node.withStatus(new Node.Status(
                Node.Phase.Removed,
                status.nodeProfile(),
                status.bootAttempt(),
                status.registeredAt(),
                status.conditions()));
        return withCondition(next, Node.CONDITION_REMOVAL, true, cause.name(), message, now);
    }

    /** Cordons the node (keeping its phase) and sets a label of its own, as the spot preemption timeline does. */
    public static Node cordonedWithLabel(Node node, String key, String value) {
        Map<String, String> labels = new TreeMap<>(node.metadata().labels());
        labels.put(key, value);
        var meta = node.metadata();
        return node.withMetadata(new Node.Meta(meta.name(), meta.creationTimestamp(), labels, meta.annotations()))
                .withSpec(new Node.Spec(
                        node.spec().providerID(), true, node.spec().taints()));
    }

    /** The node with the pool's labels, annotations and taints (its own preemption labels and health taint kept). */
    public static Node withPoolMetadata(Node node, PoolRef ref, NodePoolSpec spec) {
        var meta = node.metadata();
        var labels = labels(ref, spec, node.name(), meta.labels() == null ? Map.of() : meta.labels());
        List<Taint> taints = new ArrayList<>(spec.nodeTaints() == null ? List.of() : spec.nodeTaints());
        HealthMarks.taint(node).ifPresent(taints::add);
        return node.withMetadata(new Node.Meta(meta.name(), meta.creationTimestamp(), labels, annotations(spec)))
                .withSpec(new Node.Spec(
                        node.spec().providerID(),
                        node.spec().unschedulable(),
                        taints.isEmpty() ? null : List.copyOf(taints)));
    }

    /** Cordoned (unschedulable) or uncordoned, nothing else changed. */
    public static Node cordoned(Node node, boolean cordon) {
        return node.withSpec(
                new Node.Spec(node.spec().providerID(), cordon, node.spec().taints()));
    }

    /** The {@code topology.kubernetes.io/region} of a zone: the zone without its letter (US-EAST-04A → US-EAST-04). */
    public static String region(String zone) {
        if (zone != null
                && zone.length() > 1
                && Character.isLetter(zone.charAt(zone.length() - 1))
                && Character.isDigit(zone.charAt(zone.length() - 2))) {
            return zone.substring(0, zone.length() - 1);
        }
        return zone;
    }

    private static Map<String, String> labels(
            PoolRef ref, NodePoolSpec spec, String machine, Map<String, String> current) {
        Map<String, String> labels = new TreeMap<>();
        if (spec.nodeLabels() != null) {
            labels.putAll(spec.nodeLabels());
        }
        // The standard labels describe the machine; a pool's nodeLabels cannot override them.
        labels.put(Node.LABEL_INSTANCE_TYPE, ref.instanceType());
        labels.put(Node.LABEL_ZONE, ref.zone());
        labels.put(Node.LABEL_REGION, region(ref.zone()));
        labels.put(Node.LABEL_HOSTNAME, machine);
        labels.put(Node.LABEL_NODE_POOL, ref.pool());
        labels.put(Node.LABEL_COMPUTE_CLASS, ref.computeClass());
        for (String owned : NODE_OWNED_LABELS) {
            if (current.containsKey(owned)) {
                labels.put(owned, current.get(owned));
            }
        }
        return labels;
    }

    // Empty collections are kept as null: the JSON mapping drops them, so a stored node compares equal to a fresh one.
    private static Map<String, String> annotations(NodePoolSpec spec) {
        return spec.nodeAnnotations() == null || spec.nodeAnnotations().isEmpty()
                ? null
                : new TreeMap<>(spec.nodeAnnotations());
    }

    private static List<Taint> taints(NodePoolSpec spec) {
        return spec.nodeTaints() == null || spec.nodeTaints().isEmpty() ? null : List.copyOf(spec.nodeTaints());
    }

    private static String providerId(PoolRef ref, String machine) {
        return "coreweave://" + ref.zone() + "/" + machine;
    }

    private static String bootMessage(int attempt, String profile) {
        return "Boot attempt " + attempt + " with node configuration " + profile + ".";
    }

    private static Condition condition(
            String type, boolean status, String reason, String message, Condition previous, Instant now) {
        return Condition.of(type, status, reason, message).after(previous, now);
    }

    static Node withCondition(Node node, String type, boolean status, String reason, String message, Instant now) {
        List<Condition> conditions = new ArrayList<>(node.status().conditions());
        for (int i = 0; i < conditions.size(); i++) {
            if (conditions.get(i).type().equals(type)) {
                conditions.set(i, condition(type, status, reason, message, conditions.get(i), now));
                return node.withStatus(statusWith(node, conditions));
            }
        }
        conditions.add(condition(type, status, reason, message, null, now));
        return node.withStatus(statusWith(node, conditions));
    }

    private static Node.Status statusWith(Node node, List<Condition> conditions) {
        var s = node.status();
        return new Node.Status(s.phase(), s.nodeProfile(), s.bootAttempt(), s.registeredAt(), List.copyOf(conditions));
    }
}
