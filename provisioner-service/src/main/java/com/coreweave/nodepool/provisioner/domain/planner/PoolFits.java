package com.coreweave.nodepool.provisioner.domain.planner;

import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.resource.Taint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * An org's autoscaling pools by what a pod needs of a node, for one plan: the pools that fit a workload's needs are
 * looked for once per distinct needs, and only among the pools of the instance type or GPU model asked, so a plan's
 * checks grow with the distinct needs times the pools of each type, not with every workload times every pool. At most
 * {@code budget} checks are made in one plan; needs first seen after that are not looked at ({@link #of} is null).
 */
final class PoolFits<R> {

    private static final Set<String> REPELLING = Set.of("NoSchedule", "NoExecute");

    private final Function<R, PoolOffer> offerOf;
    private final Function<String, InstanceType> catalogue;
    private final int budget;
    private final Map<String, List<R>> byType = new HashMap<>();
    private final Map<String, List<R>> byModel = new HashMap<>();
    private final Map<Workload.Needs, List<R>> fitting = new HashMap<>();
    private int checks;

    /** {@code pools} in the order a workload tries them. */
    PoolFits(List<R> pools, Function<R, PoolOffer> offerOf, Function<String, InstanceType> catalogue, int budget) {
        this.offerOf = offerOf;
        this.catalogue = catalogue;
        this.budget = budget;
        for (R pool : pools) {
            PoolOffer offer = offerOf.apply(pool);
            byType.computeIfAbsent(offer.instanceType(), t -> new ArrayList<>()).add(pool);
            InstanceType type = catalogue.apply(offer.instanceType());
            if (type != null && type.gpuModel() != null) {
                byModel.computeIfAbsent(type.gpuModel().toLowerCase(Locale.ROOT), m -> new ArrayList<>())
                        .add(pool);
            }
        }
        checks = pools.size();
    }

    /** The pools that fit {@code needs}, in order; null when the plan's checks ran out before these needs came. */
    List<R> of(Workload.Needs needs) {
        List<R> known = fitting.get(needs);
        if (known != null) {
            return known;
        }
        List<R> candidates = needs.instanceType() != null
                ? byType.getOrDefault(needs.instanceType(), List.of())
                : byModel.getOrDefault(
                        needs.gpuModel() == null ? "" : needs.gpuModel().toLowerCase(Locale.ROOT), List.of());
        if (checks + candidates.size() > budget) {
            return null;
        }
        checks += candidates.size();
        List<R> fit = candidates.stream()
                .filter(pool -> fits(offerOf.apply(pool), needs))
                .toList();
        fitting.put(needs, fit);
        return fit;
    }

    /** The checks made so far: one per pool indexed and per pool looked at for a distinct need. */
    int checks() {
        return checks;
    }

    /** Whether the pool's nodes can run the workload's pods. */
    private boolean fits(PoolOffer offer, Workload.Needs needs) {
        if (needs.zone() != null && !needs.zone().equals(offer.zone())) {
            return false;
        }
        if (needs.instanceType() != null && !needs.instanceType().equals(offer.instanceType())) {
            return false;
        }
        InstanceType type = catalogue.apply(offer.instanceType());
        if (needs.gpuModel() != null
                && (type == null || type.gpuModel() == null || !type.gpuModel().equalsIgnoreCase(needs.gpuModel()))) {
            return false;
        }
        if (needs.gpusPerPod() > 0 && (type == null || type.gpuCount() < needs.gpusPerPod())) {
            return false;
        }
        for (Map.Entry<String, String> selected : needs.nodeSelector().entrySet()) {
            if (!selected.getValue().equals(offer.labels().get(selected.getKey()))) {
                return false;
            }
        }
        for (Taint taint : offer.taints()) {
            if (REPELLING.contains(taint.effect())
                    && needs.tolerations().stream()
                            .noneMatch(t -> t.tolerates(taint.key(), taint.value(), taint.effect()))) {
                return false;
            }
        }
        return true;
    }
}
