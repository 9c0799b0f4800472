package com.coreweave.nodepool.provisioner.domain.controllers.lifecycle;

import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;

/** The pool's labels, annotations and taints follow the spec onto every node ({@code CWNodePoolMetadata}). */
public final class PoolMetadata implements Controller {

    @Override
    public String name() {
        return "lifecycle.metadata";
    }

    @Override
    public void reconcile(WorkingPool pool) {
        applyPoolMetadata(pool);
    }

    /** Labels, annotations and taints of the spec are applied to existing nodes too. */
    static void applyPoolMetadata(WorkingPool pool) {
        int changed = 0;
        for (PoolNode node : pool.snapshot()) {
            Node next = NodeTemplate.withPoolMetadata(node.node(), pool.ref(), pool.spec());
            if (!next.equals(node.node())) {
                pool.updated(node.withNode(next), "Metadata");
                changed++;
            }
        }
        if (changed > 0) {
            pool.poolEvent(
                    CwEvent.CWNodePoolMetadata,
                    "Labels, annotations and taints of " + changed + " node(s) updated to the NodePool's spec.",
                    pool.uid() + "/generation-" + pool.accepted().generation());
        }
    }
}
