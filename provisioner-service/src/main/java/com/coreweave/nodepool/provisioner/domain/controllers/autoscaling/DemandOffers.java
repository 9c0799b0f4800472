package com.coreweave.nodepool.provisioner.domain.controllers.autoscaling;

import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an autoscaling pool offers the demand planner, sent when it changes: the labels and taints its nodes carry (the
 * pool's own and the well-known ones every node has), its type, zone, bounds and weight, its nodes and spare nodes, and
 * whether capacity keeps it waiting. A pool that stops autoscaling, is being deleted, disabled or not valid withdraws
 * its offer once.
 */
public final class DemandOffers implements Controller {

    @Override
    public String name() {
        return "autoscaling.offers";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        offer(pool);
    }

    static void offer(WorkingPool pool) {
        PoolOffer last = pool.demand().offered();
        PoolOffer next = offerable(pool) ? of(pool) : null;
        if (next == null) {
            if (last != null && !last.withdrawn()) {
                pool.offer(PoolOffer.withdrawn(pool.ref().org(), pool.ref().pool()));
            }
            return;
        }
        if (!next.equals(last)) {
            pool.offer(next);
        }
    }

    /** The withdrawal of a pool that is forgotten, or null when it offered nothing. */
    public static PoolOffer withdrawal(PoolState state) {
        PoolOffer last = state == null ? null : state.demand().offered();
        return last == null || last.withdrawn() ? null : PoolOffer.withdrawn(last.org(), last.pool());
    }

    private static boolean offerable(WorkingPool pool) {
        return Boolean.TRUE.equals(pool.spec().autoscaling()) && !pool.deleting() && !pool.disabled() && pool.valid();
    }

    private static PoolOffer of(WorkingPool pool) {
        NodePoolSpec spec = pool.spec();
        PoolRef ref = pool.ref();
        int nodes = 0;
        int spare = 0;
        for (PoolNode node : pool.staying()) {
            nodes++;
            if (node.phase() == Node.Phase.Booting || node.phase() == Node.Phase.Registered && !node.active()) {
                spare++;
            }
        }
        CapacityChecked capacity = pool.capacity();
        boolean ours = capacity != null && capacity.pool().uid().equals(pool.uid());
        return new PoolOffer(
                ref.org(),
                ref.pool(),
                false,
                ref.instanceType(),
                ref.zone(),
                labels(ref, spec),
                spec.nodeTaints(),
                spec.minNodes() == null ? 0 : spec.minNodes(),
                spec.maxNodes(),
                spec.preference(),
                nodes,
                spare,
                ours ? capacity.queuedNodes() : 0,
                ours && Conditions.Capacity.NONE_AVAILABLE.equals(capacity.reason()));
    }

    /** The labels every node of the pool carries, as a node selector sees them (NodeTemplate sets the same). */
    private static Map<String, String> labels(PoolRef ref, NodePoolSpec spec) {
        Map<String, String> labels = new TreeMap<>();
        if (spec.nodeLabels() != null) {
            labels.putAll(spec.nodeLabels());
        }
        labels.put(Node.LABEL_INSTANCE_TYPE, ref.instanceType());
        labels.put(Node.LABEL_ZONE, ref.zone());
        labels.put(Node.LABEL_REGION, NodeTemplate.region(ref.zone()));
        labels.put(Node.LABEL_NODE_POOL, ref.pool());
        labels.put(Node.LABEL_COMPUTE_CLASS, ref.computeClass());
        return labels;
    }
}
