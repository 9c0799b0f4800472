package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.events.Verdicts;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.Gpu;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationUpdateStrategy;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.PendingDemand;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** Small builders shared by the domain tests: one pool of the reference's healthy example and its surroundings. */
public final class Fixtures {

    static final Instant NOW = Instant.parse("2025-06-09T14:48:54.789Z");
    static final Instant NOW_SECONDS = Instant.parse("2025-06-09T14:48:54Z");
    static final String ORG = "acme";
    static final String POOL = "example-nodepool";
    static final String KEY = ORG + "/" + POOL;
    static final String UID = "9311678d-4064-45b8-8439-b943250e5852";
    static final String OTHER_UID = "0c7e1f55-0000-4000-8000-000000000001";
    static final String ZONE = "US-EAST-04A";
    static final String OTHER_ZONE = "US-WEST-01A";
    static final String A100 = "gd-8xa100-i128";
    static final String GH200 = "gh200-1xgh200-i72";
    static final Instant CREATED = Instant.parse("2025-05-30T17:36:00Z");

    private static final InstanceType A100_TYPE = new InstanceType(
            A100, "8x A100 80GB", "A100", 8, 128, 2048, false, List.of(ZONE, "US-CENTRAL-02A", "US-EAST-08A"));
    private static final InstanceType GH200_TYPE =
            new InstanceType(GH200, "1x GH200", "GH200", 1, 72, 480, true, List.of(ZONE));

    static final Validation VALID = new Validation(Conditions.Validated.VALID, PlatformValidator.VALID_MESSAGE);

    private Fixtures() {}

    // ---- JSON manifests -------------------------------------------------------------------------------------------

    public static ObjectNode json(String text) {
        try {
            return (ObjectNode) Json.mapper().readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    public static JsonNode anyJson(String text) {
        try {
            return Json.mapper().readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** The smallest manifest the API accepts: a fresh tree each call, for a test to break one thing in it. */
    public static ObjectNode manifest() {
        return json("""
        {"apiVersion": "compute.coreweave.com/v1alpha1", "kind": "NodePool",
         "metadata": {"name": "example-nodepool"},
         "spec": {"instanceType": "gd-8xa100-i128", "targetNodes": 1}}
        """);
    }

    /** The object at {@code pointer} (such as {@code /spec/image}) of {@code root}. */
    static ObjectNode at(ObjectNode root, String pointer) {
        return (ObjectNode) root.at(pointer);
    }

    // ---- catalogue ------------------------------------------------------------------------------------------------

    static Function<String, InstanceType> catalogue() {
        Map<String, InstanceType> types = Map.of(A100, A100_TYPE, GH200, GH200_TYPE);
        return types::get;
    }

    // ---- spec and pool --------------------------------------------------------------------------------------------

    /** A spec of {@value #A100} with one target node; everything else unset. */
    static SpecBuilder spec() {
        return new SpecBuilder();
    }

    static final class SpecBuilder {
        private String computeClass;
        private String instanceType = A100;
        private Integer targetNodes = 1;
        private Integer minNodes;
        private Integer maxNodes;
        private Map<String, String> nodeLabels;
        private Map<String, String> nodeAnnotations;
        private List<Taint> nodeTaints;
        private Image image;
        private Gpu gpu;
        private Boolean autoscaling;
        private Lifecycle lifecycle;
        private NodeConfigurationUpdateStrategy strategy;
        private String region;

        SpecBuilder computeClass(String value) {
            computeClass = value;
            return this;
        }

        SpecBuilder instanceType(String value) {
            instanceType = value;
            return this;
        }

        SpecBuilder targetNodes(Integer value) {
            targetNodes = value;
            return this;
        }

        SpecBuilder minNodes(Integer value) {
            minNodes = value;
            return this;
        }

        SpecBuilder maxNodes(Integer value) {
            maxNodes = value;
            return this;
        }

        SpecBuilder nodeLabels(Map<String, String> value) {
            nodeLabels = value;
            return this;
        }

        SpecBuilder nodeAnnotations(Map<String, String> value) {
            nodeAnnotations = value;
            return this;
        }

        SpecBuilder nodeTaints(List<Taint> value) {
            nodeTaints = value;
            return this;
        }

        SpecBuilder image(Image value) {
            image = value;
            return this;
        }

        SpecBuilder gpu(Gpu value) {
            gpu = value;
            return this;
        }

        SpecBuilder autoscaling(Boolean value) {
            autoscaling = value;
            return this;
        }

        SpecBuilder scaleDownStrategy(String value) {
            lifecycle = new Lifecycle(value, null);
            return this;
        }

        SpecBuilder updateStrategy(String value) {
            strategy = new NodeConfigurationUpdateStrategy(value);
            return this;
        }

        SpecBuilder region(String value) {
            region = value;
            return this;
        }

        NodePoolSpec build() {
            return new NodePoolSpec(
                    computeClass,
                    instanceType,
                    targetNodes,
                    minNodes,
                    maxNodes,
                    nodeLabels,
                    nodeAnnotations,
                    nodeTaints,
                    image,
                    gpu,
                    autoscaling,
                    lifecycle,
                    strategy,
                    region);
        }

        /** As the pool processor stores it: the reference's defaults filled in, the default zone when no region. */
        NodePoolSpec withDefaults() {
            return build().withDefaults(ZONE);
        }
    }

    /** The stored pool: generation 1, resourceVersion 100, valid. */
    static NodePoolAccepted accepted(NodePoolSpec spec) {
        return accepted(spec, UID, 1, VALID);
    }

    static NodePoolAccepted accepted(NodePoolSpec spec, String uid, long generation, Validation validation) {
        ObjectMeta meta = new ObjectMeta(POOL, uid, generation, "100", CREATED, null, null, null);
        return new NodePoolAccepted(ORG, NodePool.of(meta, spec.withDefaults(ZONE), null), validation, CREATED);
    }

    static NodePoolAccepted deleting(NodePoolAccepted accepted) {
        ObjectMeta meta = accepted.nodePool().metadata().withDeletionTimestamp(NOW_SECONDS);
        return new NodePoolAccepted(
                accepted.org(), accepted.nodePool().withMetadata(meta), accepted.validation(), accepted.acceptedAt());
    }

    // ---- facts ----------------------------------------------------------------------------------------------------

    static PoolRef ref() {
        return ref(UID, 1);
    }

    static PoolRef ref(String uid, long generation) {
        return new PoolRef(ORG, POOL, uid, generation, ZONE, A100, NodePoolSpec.COMPUTE_CLASS_DEFAULT);
    }

    static final String QUOTA_MESSAGE = "NodePool is within instance type quota.";
    static final String CAPACITY_MESSAGE = "Sufficient capacity available for the requested instance type.";

    /** Quota's and capacity's verdicts, as the provisioner's summary carries them. */
    static Verdicts verdicts(String quotaReason, String capacityReason, int queuedNodes) {
        return new Verdicts(
                quotaReason,
                quotaReason == null ? null : QUOTA_MESSAGE,
                capacityReason,
                capacityReason == null ? null : CAPACITY_MESSAGE,
                queuedNodes);
    }

    /** {@code reconciled} carrying {@code next} verdicts instead of its own. */
    static NodePoolReconciled withVerdicts(NodePoolReconciled r, Verdicts next) {
        return copy(r, next, r.disruption(), r.pendingDemand());
    }

    /** {@code reconciled} saying {@code next} of the pool's disruptions instead of what it said. */
    static NodePoolReconciled withDisruption(NodePoolReconciled r, DisruptionStatus next) {
        return copy(r, r.verdicts(), next, r.pendingDemand());
    }

    /** {@code reconciled} saying {@code next} of the pool's pending demand instead of what it said. */
    static NodePoolReconciled withPendingDemand(NodePoolReconciled r, PendingDemand next) {
        return copy(r, r.verdicts(), r.disruption(), next);
    }

    private static NodePoolReconciled copy(
            NodePoolReconciled r, Verdicts verdicts, DisruptionStatus disruption, PendingDemand pendingDemand) {
        return new NodePoolReconciled(
                r.pool(),
                r.targetNodes(),
                r.currentNodes(),
                r.inProgress(),
                r.removing(),
                r.nodeProfile(),
                r.pendingNodeConfiguration(),
                r.nodeConfigurationRevisions(),
                r.deleting(),
                r.nodesRemoved(),
                r.disabled(),
                r.disabledMessage(),
                r.at(),
                r.removalError(),
                r.deliveryError(),
                r.stagingError(),
                verdicts,
                disruption,
                pendingDemand);
    }

    /** The view with quota's verdict changed in its summary. */
    static PoolView quotaSays(PoolView view, String reason) {
        return withVerdicts(
                view,
                v -> new Verdicts(
                        reason,
                        reason == null ? null : QUOTA_MESSAGE,
                        v.capacityReason(),
                        v.capacityMessage(),
                        v.queuedNodes()));
    }

    /** The view with capacity's verdict changed in its summary. */
    static PoolView capacitySays(PoolView view, String reason, int queuedNodes) {
        return withVerdicts(
                view,
                v -> new Verdicts(
                        v.quotaReason(),
                        v.quotaMessage(),
                        reason,
                        reason == null ? null : CAPACITY_MESSAGE,
                        queuedNodes));
    }

    /** (A view without a summary gets one of its pool as the provisioner first reconciles it.) */
    private static PoolView withVerdicts(PoolView view, UnaryOperator<Verdicts> change) {
        NodePoolReconciled held =
                view.reconciled() != null ? view.reconciled() : reconciled(PoolRef.of(view.accepted()), null);
        Verdicts before = held == null || held.verdicts() == null ? verdicts(null, null, 0) : held.verdicts();
        return view.withReconciled(withVerdicts(held, change.apply(before)));
    }

    static NodePoolReconciled reconciled(PoolRef pool, String nodeProfile) {
        return new NodePoolReconciled(pool, 1, 1, 0, 0, nodeProfile, null, List.of(), false, false, false, null, NOW);
    }

    static NodePoolReconciled nodesRemoved(PoolRef pool) {
        return new NodePoolReconciled(pool, 1, 0, 0, 0, "profile-1", null, List.of(), true, true, false, null, NOW);
    }

    static NodePoolReconciled disabled(PoolRef pool, String message) {
        return new NodePoolReconciled(pool, 1, 0, 0, 0, "profile-1", null, List.of(), false, false, true, message, NOW);
    }

    /** A reconcile reporting fleet failures being retried (null where none). */
    static NodePoolReconciled failing(PoolRef pool, boolean deleting, String removal, String delivery, String staging) {
        return new NodePoolReconciled(
                pool,
                1,
                1,
                0,
                removal == null ? 0 : 1,
                "profile-1",
                null,
                List.of(),
                deleting,
                false,
                false,
                null,
                NOW,
                removal,
                delivery,
                staging,
                null,
                null,
                null);
    }

    // ---- nodes ----------------------------------------------------------------------------------------------------

    static Node node(String name, Node.Phase phase, String nodeProfile) {
        return node(name, phase, nodeProfile, List.of());
    }

    static Node node(String name, Node.Phase phase, String nodeProfile, List<Condition> conditions) {
        return Node.of(
                new Node.Meta(name, CREATED, Map.of(), Map.of()),
                new Node.Spec("cw://" + name, false, List.of()),
                new Node.Status(phase, nodeProfile, 1, null, conditions));
    }

    /** A registered node the provisioner has marked for removal ({@code CWNodeRemoval=True}). */
    static Node beingRemoved(String name) {
        return node(
                name,
                Node.Phase.Draining,
                "profile-1",
                List.of(Condition.of(Node.CONDITION_REMOVAL, true, "ScaleDown", "selected for scale-down")));
    }

    static Map<String, Node> nodes(Node... nodes) {
        Map<String, Node> byName = new TreeMap<>();
        for (Node node : nodes) {
            byName.put(node.name(), node);
        }
        return byName;
    }
}
