package com.coreweave.nodepool.provisioner.domain.controllers.autoscaling;

import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;

/**
 * The autoscaler's request to change a pool's {@code targetNodes}, as the cluster-autoscaler changes a NodePool through
 * the API: an {@code APPLY} of the accepted spec with the new target to {@code nodepool-requested}, with the accepted
 * {@code resourceVersion} as precondition and an id fixed by the pool, its version and the target, so a replay asks
 * nothing new.
 */
final class ScaleRequests {

    static final String SOURCE = "provisioner-service/autoscaler";

    private ScaleRequests() {}

    static void ask(WorkingPool pool, int target, CwEvent event, String why) {
        NodePool accepted = pool.accepted().nodePool();
        ObjectMeta meta = accepted.metadata();
        ObjectMeta precondition = new ObjectMeta(
                meta.name(), null, null, meta.resourceVersion(), null, null, meta.labels(), meta.annotations());
        String id = SOURCE + "/" + pool.uid() + "/" + meta.resourceVersion() + "/" + target;
        pool.request(
                CloudEvent.of(
                        id,
                        SOURCE,
                        NodePoolRequested.TYPE,
                        pool.ref().key().toString(),
                        pool.now(),
                        new NodePoolRequested(
                                NodePoolRequested.Operation.APPLY,
                                NodePool.of(precondition, accepted.spec().withTargetNodes(target), null))),
                version(pool));
        pool.poolEvent(event, "Autoscaler: " + why, pool.uid() + "/autoscale-" + meta.resourceVersion());
    }

    static String version(WorkingPool pool) {
        return pool.accepted().nodePool().metadata().resourceVersion();
    }
}
