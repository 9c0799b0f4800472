package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.api.kube.JsonSize;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;

/** What a stored pool counts against its org's storage quota ({@link PoolStorageQuota}). */
public final class StoredSize {

    private StoredSize() {}

    /**
     * The pool's metadata and spec as JSON, as {@link PoolDecider} measures it before storing it, in whole blocks. A
     * pool is measured whole (it was accepted under the object bound, or before it).
     */
    public static long counted(NodePoolAccepted accepted) {
        return PoolStorageQuota.blocks(JsonSize.of(accepted.nodePool(), Long.MAX_VALUE));
    }

    /** What {@code next} counts: the size its decision measured, when it did, or measured now. */
    public static long counted(NodePoolAccepted next, long measuredBytes) {
        return measuredBytes >= 0 ? PoolStorageQuota.blocks(measuredBytes) : counted(next);
    }
}
