package com.coreweave.nodepool.provisioner.domain.controllers.autoscaling;

import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.util.Objects;

/**
 * The autoscaler's answer to pending demand: with {@code P} nodes asked by the pool's pending workloads and {@code S}
 * spare nodes (idle, or still booting), it asks {@code targetNodes} = nodes present + P − S within {@code [minNodes,
 * maxNodes]} (an unset {@code maxNodes} leaves the bound to quota), and when demand is withdrawn while nodes it raised
 * the target for are still queued, it lowers the target back to what is present. Idle nodes are left to consolidation
 * ({@link AutoscalingController}).
 */
final class DemandAutoscaler {

    private DemandAutoscaler() {}

    /** Records {@code NotTriggerScaleUp} once per change of the planner's reason for not scaling the pool up. */
    static void recordVerdict(WorkingPool pool) {
        PoolDemand demand = pool.demand().demand();
        String verdict = demand == null || demand.blocked() == null ? null : demand.blocked() + ": " + demand.message();
        if (Objects.equals(verdict, pool.demand().verdict())) {
            return;
        }
        pool.changeDemand(pool.demand().withVerdict(verdict));
        if (verdict != null) {
            pool.poolEvent(
                    CwEvent.NotTriggerScaleUp,
                    "Autoscaler: pending workloads did not trigger a scale-up: " + verdict,
                    pool.uid() + "/not-triggered-" + Integer.toHexString(verdict.hashCode()));
        }
    }

    /** Asks for the target pending demand calls for; true when it asked. */
    static boolean scale(WorkingPool pool) {
        PoolDemand demand = pool.demand().demand();
        if (demand == null) {
            return false;
        }
        NodePoolSpec spec = pool.spec();
        int target = spec.target();
        int min = spec.minNodes() == null ? 0 : spec.minNodes();
        int max = spec.maxNodes() == null ? Limits.MAX_TARGET_NODES : spec.maxNodes();
        int present = 0;
        int spare = 0;
        for (PoolNode node : pool.staying()) {
            present++;
            if (node.phase() == Node.Phase.Booting || node.phase() == Node.Phase.Registered && !node.active()) {
                spare++;
            }
        }
        int raisedTo = pool.demand().raisedTo();
        if (raisedTo > 0 && present >= raisedTo) {
            raisedTo = 0;
            pool.changeDemand(pool.demand().withRaisedTo(0));
        }
        int pending = demand.nodes();
        int wanted = (int) Math.max(min, Math.min(max, (long) present + pending - spare));
        if (wanted > target) {
            ScaleRequests.ask(
                    pool,
                    wanted,
                    CwEvent.TriggeredScaleUp,
                    "pending workloads " + String.join(", ", demand.names())
                            + (demand.workloads() > demand.names().size()
                                    ? " and "
                                            + (demand.workloads()
                                                    - demand.names().size()) + " more"
                                    : "")
                            + " need " + pending + " node(s), " + spare + " spare: targetNodes " + target + " -> "
                            + wanted + " (maxNodes " + (spec.maxNodes() == null ? "unset" : spec.maxNodes()) + ").");
            pool.changeDemand(pool.demand().withRaisedTo(wanted));
            return true;
        }
        // Nodes asked for demand that has gone (or moved to another pool) and not yet granted: no longer wanted.
        int floor = Math.max(min, Math.max(present, wanted));
        if (raisedTo == target && target > present && floor < target) {
            ScaleRequests.ask(
                    pool,
                    floor,
                    CwEvent.ScaleDown,
                    (target - floor) + " node(s) not yet granted are no longer needed by pending workloads: "
                            + "targetNodes " + target + " -> " + floor + " (minNodes " + min + ").");
            pool.changeDemand(pool.demand().withRaisedTo(0));
            return true;
        }
        return false;
    }
}
