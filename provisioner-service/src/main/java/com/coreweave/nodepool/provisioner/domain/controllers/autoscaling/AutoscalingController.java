package com.coreweave.nodepool.provisioner.domain.controllers.autoscaling;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The autoscaler of a pool with {@code autoscaling: true}: it moves {@code targetNodes} within {@code [minNodes,
 * maxNodes]} from the busy/idle reports the provisioner already has, since the simulation has no pods whose scheduling
 * would tell it more. One node more when every node of the pool has been busy for {@code scaleUpAfter}; one node less
 * for every node idle for {@code scaleDownUnneededTime} (the cluster-autoscaler's "unneeded" time). Like the
 * cluster-autoscaler it changes the NodePool through the API: it publishes an {@code APPLY} of the accepted spec with
 * the new target to {@code nodepool-requested}, with the accepted {@code resourceVersion} as precondition, so a user's
 * concurrent edit wins, and quota and capacity decide the new target as they decide anyone's. It asks once per version
 * of the pool (a refused request, say because the user wrote the pool meanwhile, is asked again on the next version)
 * and only while the pool is settled at its target.
 *
 * <p>Pending demand from the demand planner comes first ({@link DemandAutoscaler}): it sizes the pool from the nodes
 * its pending workloads need, from 0 and back; idle nodes beyond what demand waits for are consolidated after
 * {@code spec.disruption.consolidateAfter} (Karpenter's name; {@code scaleDownUnneededTime} when unset).
 */
public final class AutoscalingController implements Controller {

    private final ProvisioningPolicy policy;

    public AutoscalingController(ProvisioningPolicy policy) {
        this.policy = policy;
    }

    @Override
    public String name() {
        return "autoscaling";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        autoscale(pool, policy);
    }

    static void autoscale(WorkingPool pool, ProvisioningPolicy policy) {
        pool.autoscaleAt(null);
        NodePoolSpec spec = pool.spec();
        if (!Boolean.TRUE.equals(spec.autoscaling())
                || pool.deleting()
                || pool.disabled()
                || !pool.valid()
                // A later generation that was not applied waits for its author: applying over it would discard the
                // edit.
                || pool.accepted().lastValid() != null) {
            return;
        }
        DemandAutoscaler.recordVerdict(pool);
        if (ScaleRequests.version(pool).equals(pool.autoscaledVersion()) || DemandAutoscaler.scale(pool)) {
            return;
        }
        int target = spec.target();
        int min = spec.minNodes() == null ? 0 : spec.minNodes();
        int max = spec.maxNodes() == null ? target : spec.maxNodes();
        List<PoolNode> nodes = List.copyOf(pool.nodes());
        boolean settled = nodes.size() == target
                && nodes.stream().allMatch(n -> n.phase() == Node.Phase.Registered && !n.leaving());
        if (!settled || target == 0) {
            // Nodes still arrive or leave, or there is none to read a load from; a change of the pool brings it back
            // here.
            return;
        }
        List<Instant> idleSince = nodes.stream()
                .filter(n -> !n.active())
                .map(AutoscalingController::since)
                .toList();
        if (idleSince.isEmpty() && target < max) {
            Instant busySince = nodes.stream()
                    .map(AutoscalingController::since)
                    .max(Instant::compareTo)
                    .orElseThrow();
            Instant due = busySince.plus(policy.scaleUpAfter());
            if (due.isAfter(pool.now())) {
                pool.autoscaleAt(due);
                return;
            }
            ScaleRequests.ask(
                    pool,
                    target + 1,
                    CwEvent.TriggeredScaleUp,
                    "all " + target + " node(s) busy for "
                            + policy.scaleUpAfter().toSeconds() + "s: targetNodes " + target + " -> " + (target + 1)
                            + " (maxNodes " + max + ").");
            return;
        }
        // Idle nodes pending demand waits for are kept.
        int reserved = pool.demand().pendingNodes();
        if (target <= min || idleSince.size() <= reserved) {
            return;
        }
        Duration consolidateAfter =
                spec.consolidateAfter() == null ? policy.scaleDownUnneededTime() : spec.consolidateAfter();
        long unneeded = Math.min(
                idleSince.size() - reserved,
                idleSince.stream()
                        .filter(t -> !t.plus(consolidateAfter).isAfter(pool.now()))
                        .count());
        int next = (int) Math.max(min, target - unneeded);
        if (next < target) {
            ScaleRequests.ask(
                    pool,
                    next,
                    CwEvent.ScaleDown,
                    unneeded + " node(s) idle for "
                            + consolidateAfter.toSeconds() + "s or more: targetNodes " + target + " -> "
                            + next
                            + " (minNodes " + min + ").");
            return;
        }
        pool.autoscaleAt(
                idleSince.stream().min(Instant::compareTo).orElseThrow().plus(consolidateAfter));
    }

    /** Since when the node has been busy or idle as it is now: its last activity change, or its registration. */
    private static Instant since(PoolNode node) {
        Instant registered = node.node().status().registeredAt();
        Instant changed = node.node().status().conditions().stream()
                .filter(c -> c.type().equals(Node.CONDITION_ACTIVE))
                .map(Condition::lastTransitionTime)
                .findFirst()
                .orElse(registered);
        return registered == null || changed != null && changed.isAfter(registered) ? changed : registered;
    }
}
