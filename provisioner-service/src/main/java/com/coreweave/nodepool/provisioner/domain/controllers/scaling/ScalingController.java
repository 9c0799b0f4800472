package com.coreweave.nodepool.provisioner.domain.controllers.scaling;

import com.coreweave.nodepool.provisioner.domain.disruption.DisruptionAllowance;
import com.coreweave.nodepool.provisioner.domain.disruption.DoNotDisrupt;
import com.coreweave.nodepool.provisioner.domain.disruption.Drains;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaultPoints;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionReason;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.PoolState.Scaling;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Moves a pool's nodes towards the desired count: the spec's {@code targetNodes} capped by what quota admitted, 0 while
 * deleting. Nodes still draining for a scale-down are kept when the target rises again; grants become booting nodes;
 * grants beyond the desired count are released; extra nodes leave as {@link ScaleDownSelector} chooses and the pool's
 * disruption budgets allow for {@code ScaleDown}. A scaling episode announces its start and, once settled, its end.
 */
public final class ScalingController implements Controller {

    private final ProvisioningPolicy policy;
    private final NodeRemovals removals;

    public ScalingController(ProvisioningPolicy policy, NodeRemovals removals) {
        this.policy = policy;
        this.removals = removals;
    }

    @Override
    public String name() {
        return "scaling";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        int desired = pool.desired();
        keepLeavingNodes(pool, desired);
        useGrants(pool, desired);
        scaleDown(pool, desired);
        closeEpisode(pool, desired);
    }

    /** When the target rises again, nodes still draining for a scale-down are kept before any new node boots. */
    private static void keepLeavingNodes(WorkingPool pool, int desired) {
        if (pool.deleting()) {
            return;
        }
        int shortfall = desired - pool.staying().size();
        List<PoolNode> reclaimable = pool.nodes().stream()
                .filter(n -> n.removal() == RemovalCause.ScaleDown)
                .sorted(ScaleDownSelector.NEWEST_FIRST.reversed())
                .limit(Math.max(0, shortfall))
                .toList();
        if (reclaimable.isEmpty()) {
            return;
        }
        pool.startEpisode(Scaling.UP);
        for (PoolNode node : reclaimable) {
            pool.updated(node.staying(NodeTemplate.staying(node.node(), pool.now())), "Uncordoned");
            pool.nodeEvent(
                    node.name(),
                    CwEvent.CWNodeUncordoned,
                    "Node " + node.name() + " uncordoned: the NodePool needs it again.",
                    pool.episodeCause() + "/" + node.grant().grantId());
        }
    }

    /**
     * Each grant not yet a node and never released fills a free place: a new booting node, or, while the pool may not
     * boot nodes (invalid or disabled), a grant held for later. Grants beyond the desired count are released at once. A
     * machine the fleet cannot deliver ({@code CWNodeDeliverFail}) is released to maintenance; the ledger grants
     * another.
     */
    private void useGrants(WorkingPool pool, int desired) {
        Set<Long> used = new HashSet<>();
        Set<String> machines = new HashSet<>();
        pool.nodes().forEach(n -> {
            used.add(n.grant().grantId());
            machines.add(n.name());
        });
        int free = desired - pool.staying().size();
        boolean mayBoot = !pool.deleting() && !pool.disabled() && pool.valid();
        String profile = pool.activeProfile();
        for (Grant grant : pool.grants()) {
            // A machine still leaving under an older grant cannot be a second node yet.
            if (pool.released(grant.grantId()) || !used.add(grant.grantId()) || machines.contains(grant.machine())) {
                continue;
            }
            if (free <= 0) {
                pool.decline(grant);
                continue;
            }
            if (mayBoot && undeliverable(pool, grant)) {
                continue;
            }
            free--;
            if (!mayBoot) {
                continue;
            }
            pool.delivered();
            pool.startEpisode(Scaling.UP);
            machines.add(grant.machine());
            PoolNode node = PoolNode.assigned(
                    NodeTemplate.assigned(pool.ref(), pool.spec(), grant.machine(), profile, pool.now()),
                    grant,
                    pool.now().plus(policy.bootTime()));
            pool.assigned(node);
            String cause = pool.uid() + "/" + grant.grantId();
            pool.poolEvent(CwEvent.CWNodeAssigned, "Node " + grant.machine() + " assigned to the NodePool.", cause);
            pool.nodeEvent(
                    grant.machine(),
                    CwEvent.CWConfigStaged,
                    "Node configuration " + profile + " staged for the node's boot.",
                    cause);
        }
    }

    private boolean undeliverable(WorkingPool pool, Grant grant) {
        String failure = FleetFaultPoints.deliveryFailure(policy, pool, grant);
        if (failure == null) {
            return false;
        }
        pool.undeliverable(grant, failure);
        pool.poolEvent(CwEvent.CWNodeDeliverFail, failure, pool.uid() + "/" + grant.grantId());
        return true;
    }

    /**
     * Extra nodes leave: booting and idle ones at once, active ones drained when the strategy (or a deletion) allows.
     */
    private void scaleDown(WorkingPool pool, int desired) {
        List<PoolNode> staying = pool.staying();
        int excess = staying.size() - desired;
        if (pool.deleting() && !pool.nodes().isEmpty() && pool.startEpisode(Scaling.DELETE)) {
            pool.poolEvent(
                    CwEvent.CWNodePoolRemoveNodes,
                    "Removing all " + pool.nodes().size() + " node(s): the " + "NodePool is being deleted.",
                    pool.episodeCause());
        } else if (!pool.deleting() && excess > 0 && pool.startEpisode(Scaling.DOWN)) {
            pool.poolEvent(
                    CwEvent.CWNodePoolRemoveNodes,
                    "Scaling down from " + staying.size() + " to " + desired + " node(s) with the "
                            + pool.spec().scaleDownStrategy() + " strategy.",
                    pool.episodeCause());
        }
        if (excess <= 0) {
            return;
        }
        String strategy = pool.spec().scaleDownStrategy();
        // A deletion takes every node; otherwise held nodes are not candidates.
        Map<Boolean, List<PoolNode>> byHold =
                staying.stream().collect(Collectors.partitioningBy(n -> !pool.deleting() && DoNotDisrupt.held(n)));
        List<PoolNode> kept = byHold.get(true);
        var selection = ScaleDownSelector.select(byHold.get(false), excess, strategy, pool.deleting());
        int chosen = selection.removeNow().size() + selection.drain().size();
        // The held nodes the strategy would take for what the others cannot give are the ones said to wait.
        var waitingForHold = ScaleDownSelector.select(kept, excess - chosen, strategy, false);
        RemovalCause cause = pool.deleting() ? RemovalCause.PoolDeleted : RemovalCause.ScaleDown;
        String why = pool.deleting() ? "the NodePool is being deleted" : "the NodePool scales down to " + desired;
        DisruptionAllowance allowance = DisruptionAllowance.of(pool, policy);
        int held = 0;
        for (PoolNode node : selection.removeNow()) {
            if (!budgeted(pool, node, allowance, false)) {
                held++;
                continue;
            }
            removals.remove(
                    pool, node, cause, "Removed: " + why + ".", "Node " + node.name() + " deleted: " + why + ".");
        }
        for (PoolNode node : selection.drain()) {
            if (!budgeted(pool, node, allowance, true)) {
                held++;
                continue;
            }
            Drains.leave(
                    pool,
                    policy,
                    node,
                    cause,
                    why,
                    pool.episodeCause() + "/" + node.grant().grantId());
        }
        List<PoolNode> heldBack = new ArrayList<>(waitingForHold.removeNow());
        heldBack.addAll(waitingForHold.drain());
        allowance.held(DisruptionReason.ScaleDown, held, "to leave for the scale-down to " + desired, heldBack);
    }

    /**
     * Whether the budgets let this node leave for a scale-down now (and count it if so): a booting node never served
     * and leaves at once, and so does every node of a pool being deleted; an idle node leaves at once, so it counts in
     * the windows only, while a drained one is out of service until it is gone.
     */
    private static boolean budgeted(WorkingPool pool, PoolNode node, DisruptionAllowance allowance, boolean drained) {
        if (pool.deleting() || node.phase() != Node.Phase.Registered) {
            return true;
        }
        if (allowance.decide(DisruptionReason.ScaleDown).allowed() <= 0) {
            return false;
        }
        if (drained) {
            allowance.started(DisruptionReason.ScaleDown);
        } else {
            allowance.gone(DisruptionReason.ScaleDown);
        }
        return true;
    }

    /** A scaling that reached its end says so once. */
    private static void closeEpisode(WorkingPool pool, int desired) {
        if (pool.scaling() == null) {
            return;
        }
        boolean settled = pool.nodes().stream().allMatch(n -> n.phase() == Node.Phase.Registered && !n.leaving())
                && pool.nodes().size() == desired;
        switch (pool.scaling()) {
            case UP -> {
                if (settled) {
                    pool.poolEvent(
                            CwEvent.CWNodePoolScaledUp,
                            "NodePool scaled up to " + desired + " node(s).",
                            pool.episodeCause());
                    pool.endEpisode();
                }
            }
            case DOWN -> {
                if (settled) {
                    pool.poolEvent(
                            CwEvent.CWNodePoolNodesRemoved,
                            "Nodes removed; the NodePool has " + desired + " node(s).",
                            pool.episodeCause());
                    pool.poolEvent(
                            CwEvent.CWNodePoolScaledDown,
                            "NodePool scaled down to " + desired + " node(s).",
                            pool.episodeCause());
                    pool.endEpisode();
                }
            }
            case DELETE -> {
                if (pool.nodes().isEmpty()) {
                    pool.poolEvent(
                            CwEvent.CWNodePoolNodesRemoved,
                            "All nodes removed from the NodePool.",
                            pool.episodeCause());
                    pool.endEpisode();
                }
            }
        }
    }
}
