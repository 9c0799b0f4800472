package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.Disruption;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Pools, grants and reports as the other services would publish them. */
public final class Fixtures {

    public static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    public static final String ORG = "demo";
    public static final String POOL = "train";
    public static final String UID = "uid-1";
    public static final String ZONE = "US-EAST-04A";
    public static final String TYPE = "gd-8xa100-i128";
    public static final String BROKEN_IMAGE = "broken-image";

    private Fixtures() {}

    public static ProvisioningPolicy policy(Duration bootTime) {
        return new ProvisioningPolicy(
                bootTime,
                0.0,
                0,
                Set.of(BROKEN_IMAGE),
                3,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
    }

    public static NodePoolSpec spec(int target) {
        return new NodePoolSpec(
                "default",
                TYPE,
                target,
                null,
                null,
                Map.of("team", "research"),
                Map.of("owner", "ml-platform"),
                List.of(new Taint("nvidia.com/gpu", "present", "NoSchedule")),
                null,
                null,
                false,
                new Lifecycle(Lifecycle.IDLE_ONLY, false),
                null,
                ZONE);
    }

    public static NodePoolAccepted accepted(NodePoolSpec spec, long generation) {
        return accepted(UID, spec, generation, false);
    }

    public static NodePoolAccepted accepted(String uid, NodePoolSpec spec, long generation, boolean deleting) {
        ObjectMeta meta =
                new ObjectMeta(POOL, uid, generation, "rv-" + generation, T0, deleting ? T0 : null, null, null);
        return new NodePoolAccepted(
                ORG,
                NodePool.of(meta, spec, null),
                new Validation(Conditions.Validated.VALID, "NodePool configuration is valid."),
                T0);
    }

    public static NodePoolAccepted invalid(NodePoolSpec spec, long generation) {
        NodePoolAccepted valid = accepted(spec, generation);
        return new NodePoolAccepted(
                ORG, valid.nodePool(), new Validation(Conditions.Validated.INVALID, "no such type"), T0);
    }

    public static NodePoolSpec withStrategy(NodePoolSpec spec, String strategy) {
        return new NodePoolSpec(
                spec.computeClass(),
                spec.instanceType(),
                spec.targetNodes(),
                null,
                null,
                spec.nodeLabels(),
                spec.nodeAnnotations(),
                spec.nodeTaints(),
                spec.image(),
                spec.gpu(),
                false,
                new Lifecycle(strategy, false),
                null,
                spec.region());
    }

    public static NodePoolSpec withImage(NodePoolSpec spec, String image) {
        return new NodePoolSpec(
                spec.computeClass(),
                spec.instanceType(),
                spec.targetNodes(),
                null,
                null,
                spec.nodeLabels(),
                spec.nodeAnnotations(),
                spec.nodeTaints(),
                new Image(null, image, Image.STABLE),
                null,
                false,
                spec.lifecycle(),
                null,
                spec.region());
    }

    public static NodePoolSpec withLabels(NodePoolSpec spec, Map<String, String> labels, List<Taint> taints) {
        return new NodePoolSpec(
                spec.computeClass(),
                spec.instanceType(),
                spec.targetNodes(),
                null,
                null,
                labels,
                spec.nodeAnnotations(),
                taints,
                spec.image(),
                spec.gpu(),
                false,
                spec.lifecycle(),
                null,
                spec.region());
    }

    public static Grant grant(int n) {
        return new Grant(machine(n), 100 + n);
    }

    public static String machine(int n) {
        return String.format("us-east-04a-%s-%04d", TYPE, n);
    }

    public static PoolRef ref(long generation) {
        return new PoolRef(ORG, POOL, UID, generation, ZONE, TYPE, "default");
    }

    public static CapacityChecked capacity(long generation, Grant... grants) {
        return capacity(ref(generation), grants);
    }

    public static CapacityChecked capacity(PoolRef ref, Grant... grants) {
        return new CapacityChecked(
                ref, Conditions.Capacity.SUFFICIENT, grants.length, Arrays.asList(grants), 0, null, null, "", T0);
    }

    public static Condition condition(Node node, String type) {
        return node.status().conditions().stream()
                .filter(c -> c.type().equals(type))
                .findFirst()
                .orElseThrow();
    }

    public static CloudEvent<NodeAlert> alert(String type, int machine, String alert, Instant time, int id) {
        return CloudEvent.of(
                "alert-" + id,
                "monitoring",
                type,
                ORG + "/" + POOL,
                time,
                new NodeAlert(machine(machine), alert, "seen on GPU 3"));
    }

    public static NodePoolSpec withEvictionDisabled(NodePoolSpec spec) {
        return new NodePoolSpec(
                spec.computeClass(),
                spec.instanceType(),
                spec.targetNodes(),
                null,
                null,
                spec.nodeLabels(),
                spec.nodeAnnotations(),
                spec.nodeTaints(),
                spec.image(),
                spec.gpu(),
                false,
                new Lifecycle(spec.scaleDownStrategy(), true),
                null,
                spec.region());
    }

    public static NodePoolSpec withBudgets(NodePoolSpec spec, Disruption.Budget... budgets) {
        return with(spec, spec.lifecycle(), new Disruption(List.of(budgets)));
    }

    /** {@code spec} whose nodes are rotated once older than {@code expireAfter} ("1h"), under {@code budgets}. */
    public static NodePoolSpec withExpiry(NodePoolSpec spec, String expireAfter, Disruption.Budget... budgets) {
        return with(spec, spec.lifecycle(), new Disruption(List.of(budgets), null, expireAfter));
    }

    /** {@code spec} whose automated repair stops with more than {@code maxUnhealthy} ("3", "40%") unhealthy. */
    public static NodePoolSpec withMaxUnhealthy(NodePoolSpec spec, String maxUnhealthy) {
        Lifecycle life = spec.lifecycle();
        return with(
                spec,
                new Lifecycle(life.scaleDownStrategy(), life.disableUnhealthyNodeEviction(), maxUnhealthy),
                spec.disruption());
    }

    private static NodePoolSpec with(NodePoolSpec spec, Lifecycle lifecycle, Disruption disruption) {
        return new NodePoolSpec(
                spec.computeClass(),
                spec.instanceType(),
                spec.targetNodes(),
                spec.minNodes(),
                spec.maxNodes(),
                spec.nodeLabels(),
                spec.nodeAnnotations(),
                spec.nodeTaints(),
                spec.image(),
                spec.gpu(),
                spec.autoscaling(),
                lifecycle,
                spec.nodeConfigurationUpdateStrategy(),
                spec.region(),
                disruption,
                spec.weight());
    }

    public static NodeActivityReported activity(int machine, boolean active, Integer graceSeconds) {
        return new NodeActivityReported(ORG, POOL, machine(machine), active, graceSeconds, T0);
    }

    /** A user's {@code kubectl annotate} of the do-not-disrupt hold onto {@code machine}, or its removal. */
    public static NodeChangeRequested hold(String id, int machine, boolean hold) {
        return new NodeChangeRequested(
                id,
                ORG,
                POOL,
                UID,
                machine(machine),
                null,
                null,
                null,
                hold ? Map.of(Node.ANNOTATION_DO_NOT_DISRUPT, "true") : null,
                hold ? null : List.of(Node.ANNOTATION_DO_NOT_DISRUPT),
                null,
                false,
                T0);
    }
}
