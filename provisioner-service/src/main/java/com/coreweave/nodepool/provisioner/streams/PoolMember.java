package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.schema.events.Grant;

/**
 * One part of a pool that grows with its size, as stored in {@code provisioner-pool-members} under
 * {@code <org>/<pool>/<id>} ({@link PoolShape}): a node, a grant the ledger lists, or the id of a grant the pool
 * released. Exactly one is set.
 */
record PoolMember(PoolNode node, Grant grant, Long releasedGrant) {

    static PoolMember of(PoolNode node) {
        return new PoolMember(node, null, null);
    }

    static PoolMember of(Grant grant) {
        return new PoolMember(null, grant, null);
    }

    static PoolMember released(long grantId) {
        return new PoolMember(null, null, grantId);
    }
}
