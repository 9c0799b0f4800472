package com.coreweave.nodepool.provisioner.domain.controllers.lifecycle;

import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.UserMarks;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Taint;
import java.util.List;

/**
 * A user's change of a node through the core Node API ({@code node-change-requested}): kubectl's cordon, uncordon,
 * label, annotate and taint are kept as the node's {@link UserMarks}, and a drain's eviction makes the node's workload
 * count as gone (the node is idle until it is reported busy again). A cordon is recorded with the kubelet's reasons
 * ({@code NodeNotSchedulable}, {@code NodeSchedulable}) and a taint with {@code NodeTaintedByUser} and
 * {@code NodeUntaintedByUser}: the reference keeps {@code CWNodeCordoned} and {@code CWNodeTainted} for the platform's
 * own automation, so a user filtering on them sees only what the platform did.
 */
public final class UserChanges {

    private UserChanges() {}

    /**
     * Applies {@code request} to its node; a redelivered request, one for another incarnation of the pool or for a node
     * the pool no longer has changes nothing. An eviction is made as asked: the api-service checked it against the
     * workload's disruption budget the node shows (and a pod's deletion, as on a cluster, bypasses the budget).
     */
    public static void onChange(WorkingPool pool, NodeChangeRequested request) {
        PoolNode node = pool.node(request.node());
        if (request.uid() != null && !request.uid().equals(pool.uid())
                || node == null
                || !pool.firstHandling(request.id())) {
            return;
        }
        UserMarks before = node.marks();
        UserMarks after = before.with(request);
        PoolNode changed = node.withUser(after);
        boolean evicted = request.evicted() && node.active();
        if (evicted) {
            changed = changed.withNode(NodeTemplate.withActivity(changed.node(), false, pool.now()));
        }
        if (changed.published().equals(node.published())) {
            pool.keep(changed);
        } else {
            pool.updated(changed, evicted ? NodeTemplate.IDLE : "UserChange");
        }
        String cause = pool.uid() + "/" + node.grant().grantId() + "/user/" + request.id();
        if (before.cordoned() != after.cordoned()) {
            cordonEvent(pool, changed, after.cordoned(), cause);
        }
        taintEvents(pool, node.name(), before.taints(), after.taints(), cause);
    }

    private static void cordonEvent(WorkingPool pool, PoolNode node, boolean cordoned, String cause) {
        if (cordoned) {
            pool.nodeEvent(
                    node.name(),
                    CwEvent.NodeNotSchedulable,
                    "Node " + node.name() + " cordoned at a user's request (kubectl cordon).",
                    cause + "/cordon");
            return;
        }
        String stays =
                node.node().spec().unschedulable() ? "; it stays cordoned while the platform's own cordon lasts" : "";
        pool.nodeEvent(
                node.name(),
                CwEvent.NodeSchedulable,
                "Node " + node.name() + " uncordoned at a user's request (kubectl uncordon)" + stays + ".",
                cause + "/uncordon");
    }

    private static void taintEvents(
            WorkingPool pool, String node, List<Taint> before, List<Taint> after, String cause) {
        for (Taint taint : after) {
            if (!before.contains(taint)) {
                pool.nodeEvent(
                        node,
                        CwEvent.NodeTaintedByUser,
                        "Node " + node + " tainted " + shown(taint) + " at a user's request (kubectl taint).",
                        cause + "/taint/" + shown(taint));
            }
        }
        for (Taint taint : before) {
            if (!after.contains(taint)) {
                pool.nodeEvent(
                        node,
                        CwEvent.NodeUntaintedByUser,
                        "Node " + node + " untainted " + shown(taint) + " at a user's request (kubectl taint).",
                        cause + "/untaint/" + shown(taint));
            }
        }
    }

    private static String shown(Taint taint) {
        return taint.key() + (taint.value() == null || taint.value().isEmpty() ? "" : "=" + taint.value()) + ":"
                + taint.effect();
    }
}
