package com.coreweave.nodepool.api.messaging;

import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.UUID;

/**
 * Asks for one node of a pool to be deleted: the provisioner drains it, removes it and the pool gets a replacement
 * ({@code CWNodeDeletionRequestSuccess}), so the pool stays at its target. Whatever names the node (the NodePool's
 * {@code nodes} subresource, or a core v1 {@code DELETE /api/v1/nodes/{node}}) goes through here.
 */
@ApplicationScoped
public class NodeDeletions {

    @Inject
    RecordPublisher publisher;

    @Inject
    Clock clock;

    /**
     * Publishes the request on {@code node-deletion-requested} once the broker has it and returns the node as it is
     * now: 404 when the pool has no such node, 409 while the pool is being deleted (every node goes then anyway).
     */
    public Node request(PoolKey key, PoolView pool, String node) {
        Node current = pool.nodes().get(node);
        if (current == null) {
            throw ApiException.notFound("Node", node);
        }
        if (pool.accepted().deleting()) {
            throw ApiException.conflict(NodePool.KIND, key.pool(), "the NodePool is being deleted");
        }
        var request = new NodeDeletionRequested(
                UUID.randomUUID().toString(), key.org(), key.pool(), pool.uid(), node, clock.instant());
        publisher.publish(Topics.NODE_DELETION_REQUESTED.name(), key.toString(), request);
        return current;
    }
}
