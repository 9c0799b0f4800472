package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The desired state of a NodePool, every field of the reference (000). Enum-like fields stay strings so that a manifest
 * round-trips exactly as written; {@link #withDefaults(String)} fills the reference's defaults.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
    "computeClass",
    "region",
    "instanceType",
    "autoscaling",
    "targetNodes",
    "minNodes",
    "maxNodes",
    "nodeLabels",
    "nodeAnnotations",
    "nodeTaints",
    "image",
    "gpu",
    "lifecycle",
    "disruption",
    "weight",
    "nodeConfigurationUpdateStrategy"
})
public record NodePoolSpec(
        String computeClass,
        String instanceType,
        Integer targetNodes,
        Integer minNodes,
        Integer maxNodes,
        Map<String, String> nodeLabels,
        Map<String, String> nodeAnnotations,
        List<Taint> nodeTaints,
        Image image,
        Gpu gpu,
        Boolean autoscaling,
        Lifecycle lifecycle,
        NodeConfigurationUpdateStrategy nodeConfigurationUpdateStrategy,
        String region,
        Disruption disruption,
        Integer weight) {

    /** The highest {@code weight}: among pools that fit a pending workload, the highest weight is asked first. */
    public static final int MAX_WEIGHT = 100;

    /** A spec without disruption budgets, weight or consolidation time. */
    public NodePoolSpec(
            String computeClass,
            String instanceType,
            Integer targetNodes,
            Integer minNodes,
            Integer maxNodes,
            Map<String, String> nodeLabels,
            Map<String, String> nodeAnnotations,
            List<Taint> nodeTaints,
            Image image,
            Gpu gpu,
            Boolean autoscaling,
            Lifecycle lifecycle,
            NodeConfigurationUpdateStrategy nodeConfigurationUpdateStrategy,
            String region) {
        this(
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
                nodeConfigurationUpdateStrategy,
                region,
                null,
                null);
    }

    public static final String COMPUTE_CLASS_DEFAULT = "default";
    public static final String COMPUTE_CLASS_SPOT = "spot";

    /** The spot page writes {@code Spot}, the reference {@code spot}: both mean a preemptible pool. */
    @JsonIgnore
    public boolean isSpot() {
        return COMPUTE_CLASS_SPOT.equalsIgnoreCase(computeClass);
    }

    @JsonIgnore
    public String scaleDownStrategy() {
        return lifecycle == null || lifecycle.scaleDownStrategy() == null
                ? Lifecycle.IDLE_ONLY
                : lifecycle.scaleDownStrategy();
    }

    @JsonIgnore
    public int target() {
        return targetNodes == null ? 0 : targetNodes;
    }

    /** The spec as stored: the reference's defaults filled in, {@code region} set to the given zone when absent. */
    public NodePoolSpec withDefaults(String defaultZone) {
        Lifecycle life = lifecycle == null ? new Lifecycle(null, null) : lifecycle;
        Image img = image == null
                ? null
                : new Image(
                        image.kernel(),
                        image.name(),
                        image.releaseTrain() == null ? Image.STABLE : image.releaseTrain());
        return new NodePoolSpec(
                computeClass == null ? COMPUTE_CLASS_DEFAULT : computeClass,
                instanceType,
                targetNodes,
                minNodes,
                maxNodes,
                nodeLabels,
                nodeAnnotations,
                nodeTaints,
                img,
                gpu,
                autoscaling == null ? Boolean.FALSE : autoscaling,
                new Lifecycle(
                        life.scaleDownStrategy() == null ? Lifecycle.IDLE_ONLY : life.scaleDownStrategy(),
                        life.disableUnhealthyNodeEviction() == null
                                ? Boolean.FALSE
                                : life.disableUnhealthyNodeEviction(),
                        life.maxUnhealthy()),
                nodeConfigurationUpdateStrategy == null || nodeConfigurationUpdateStrategy.type() == null
                        ? new NodeConfigurationUpdateStrategy(NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE)
                        : nodeConfigurationUpdateStrategy,
                region == null || region.isBlank() ? defaultZone : region,
                disruption,
                weight);
    }

    public NodePoolSpec withTargetNodes(int target) {
        return new NodePoolSpec(
                computeClass,
                instanceType,
                target,
                minNodes,
                maxNodes,
                nodeLabels,
                nodeAnnotations,
                nodeTaints,
                image,
                gpu,
                autoscaling,
                lifecycle,
                nodeConfigurationUpdateStrategy,
                region,
                disruption,
                weight);
    }

    /** The pool's disruption budgets as written; empty when it sets none. */
    @JsonIgnore
    public List<Disruption.Budget> budgets() {
        return disruption == null || disruption.budgets() == null ? List.of() : disruption.budgets();
    }

    /** The pool's {@code weight}, 0 when unset. */
    @JsonIgnore
    public int preference() {
        return weight == null ? 0 : weight;
    }

    /** How long a node stays idle before the autoscaler removes it ({@code disruption.consolidateAfter}), or null. */
    @JsonIgnore
    public Duration consolidateAfter() {
        return disruption == null ? null : Disruption.duration(disruption.consolidateAfter());
    }

    /** How old a node may grow before it is rotated ({@code disruption.expireAfter}), or null when never. */
    @JsonIgnore
    public Duration expireAfter() {
        return disruption == null ? null : Disruption.expiry(disruption.expireAfter());
    }
}
