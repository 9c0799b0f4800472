package com.coreweave.nodepool.api.messaging;

import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.kube.NodeEdits;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Tells the provisioner, which owns the nodes, what a user changed on one (kubectl cordon, label, annotate, taint) or
 * that a drain evicted its workload, on {@code node-change-requested}; it returns once the broker has the record.
 */
@ApplicationScoped
public class NodeChanges {

    @Inject
    RecordPublisher publisher;

    @Inject
    Clock clock;

    /** The user's edit of {@code node}, checked already ({@link NodeEdits}). */
    public void edit(PoolKey key, PoolView pool, String node, NodeEdits.Edit edit) {
        publish(
                key,
                new NodeChangeRequested(
                        UUID.randomUUID().toString(),
                        key.org(),
                        key.pool(),
                        pool.uid(),
                        node,
                        edit.unschedulable(),
                        edit.labels(),
                        edit.removedLabels(),
                        edit.annotations(),
                        edit.removedAnnotations(),
                        edit.taints(),
                        false,
                        clock.instant()));
    }

    /** The eviction of the workload running on {@code node}: it counts as gone, the node as idle. */
    public void evict(PoolKey key, PoolView pool, String node) {
        publish(
                key,
                new NodeChangeRequested(
                        UUID.randomUUID().toString(),
                        key.org(),
                        key.pool(),
                        pool.uid(),
                        node,
                        null,
                        Map.of(),
                        List.of(),
                        Map.of(),
                        List.of(),
                        null,
                        true,
                        clock.instant()));
    }

    private void publish(PoolKey key, NodeChangeRequested request) {
        publisher.publish(Topics.NODE_CHANGE_REQUESTED.name(), key.toString(), request);
    }
}
