package com.coreweave.nodepool.provisioner.domain.controllers.expiry;

import com.coreweave.nodepool.provisioner.domain.disruption.DisruptionAllowance;
import com.coreweave.nodepool.provisioner.domain.disruption.DoNotDisrupt;
import com.coreweave.nodepool.provisioner.domain.disruption.Drains;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionReason;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Expiry ({@code spec.disruption.expireAfter}, Karpenter's name): a registered node older than that is rotated, oldest
 * first and as the pool's budgets allow for {@code Expired}: an idle node leaves at once, a busy one is drained first,
 * and the pool gets a freshly booted node in its place, as for a user's deletion. A node held by do-not-disrupt, or
 * already out of service for something else, waits. A pool without {@code expireAfter} pays one null check.
 */
public final class ExpiryController implements Controller {

    private static final Comparator<PoolNode> OLDEST_FIRST = Comparator.comparing(
                    (PoolNode n) -> n.node().metadata().creationTimestamp())
            .thenComparing(PoolNode::name);

    private final ProvisioningPolicy policy;
    private final NodeRemovals removals;

    public ExpiryController(ProvisioningPolicy policy, NodeRemovals removals) {
        this.policy = policy;
        this.removals = removals;
    }

    @Override
    public String name() {
        return "expiry";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        Duration expireAfter = pool.spec().expireAfter();
        if (expireAfter == null || pool.deleting() || pool.disabled()) {
            return;
        }
        List<PoolNode> expired = new ArrayList<>();
        Instant next = null;
        for (PoolNode node : pool.nodes()) {
            if (node.leaving() || node.phase() != Node.Phase.Registered) {
                continue;
            }
            Instant at = node.node().metadata().creationTimestamp().plus(expireAfter);
            if (at.isAfter(pool.now())) {
                next = next == null || at.isBefore(next) ? at : next;
            } else {
                expired.add(node);
            }
        }
        if (next != null) {
            pool.wakeBy(next);
        }
        if (expired.isEmpty() && !pool.disruptions().held().containsKey(DisruptionReason.Expired)) {
            return;
        }
        expired.sort(OLDEST_FIRST);
        DisruptionAllowance allowance = DisruptionAllowance.of(pool, policy);
        List<PoolNode> kept = new ArrayList<>();
        int held = 0;
        for (PoolNode node : expired) {
            if (DoNotDisrupt.held(node)) {
                kept.add(node);
            } else if (!DisruptionAllowance.outOfService(node)) {
                if (allowance.decide(DisruptionReason.Expired).allowed() <= 0) {
                    held++;
                } else {
                    allowance.started(DisruptionReason.Expired);
                    rotate(pool, node);
                }
            }
        }
        allowance.held(DisruptionReason.Expired, held, "past expireAfter " + shown(pool), kept);
    }

    private void rotate(WorkingPool pool, PoolNode node) {
        String why = "it is older than expireAfter " + shown(pool);
        String cause = pool.uid() + "/" + node.grant().grantId() + "/expired";
        pool.nodeEvent(
                node.name(),
                CwEvent.NodeExpired,
                "Node " + node.name() + " expired: created "
                        + node.node().metadata().creationTimestamp() + ", older than expireAfter " + shown(pool)
                        + "; it is replaced by a freshly booted node.",
                cause);
        if (!node.active()) {
            removals.remove(
                    pool,
                    node,
                    RemovalCause.Expired,
                    "Expired: " + why + ".",
                    "Node " + node.name() + " deleted: " + why + ".");
            return;
        }
        Drains.leave(pool, policy, node, RemovalCause.Expired, why, cause);
    }

    private static String shown(WorkingPool pool) {
        return "\"" + pool.spec().disruption().expireAfter() + "\"";
    }
}
