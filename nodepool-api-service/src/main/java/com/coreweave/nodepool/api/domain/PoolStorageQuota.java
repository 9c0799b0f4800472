package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import java.util.Map;

/**
 * How many bytes an org's pools may take as stored, as Kubernetes' {@code requests.storage} quota: one limit for every
 * org, and an operator's own for some. Each pool counts its stored size (metadata with managed fields, and spec, as
 * JSON) rounded up to whole {@link #BLOCK_BYTES} blocks, so many small pools cannot hide under it. A write that would
 * pass it is refused (403); nothing that exists is touched, and a write that shrinks a pool is always taken.
 */
public record PoolStorageQuota(long defaultLimit, Map<String, Long> perOrg) {

    /** A pool takes at least one block, as a store page would. */
    public static final long BLOCK_BYTES = 4096;

    public PoolStorageQuota {
        perOrg = Map.copyOf(perOrg);
    }

    public long limit(String org) {
        return perOrg.getOrDefault(org, defaultLimit);
    }

    /** What a pool of {@code bytes} counts against the quota: its size in whole blocks (0 for none). */
    public static long blocks(long bytes) {
        return bytes <= 0 ? 0 : ((bytes + BLOCK_BYTES - 1) / BLOCK_BYTES) * BLOCK_BYTES;
    }

    /**
     * The refusal of pool {@code name} growing from {@code before} to {@code after} counted bytes for an org whose
     * pools count {@code used}; null when it may (it does not grow, or the org has room).
     */
    public Status refusal(String org, String name, long used, long before, long after) {
        long requested = after - before;
        long limit = limit(org);
        if (requested <= 0 || used + requested <= limit) {
            return null;
        }
        return Statuses.failure(
                403,
                "Forbidden",
                "nodepools.compute.coreweave.com \"" + name + "\" is forbidden: "
                        + "exceeded quota: storage/nodepools.compute.coreweave.com, requested: " + requested
                        + ", used: " + used + ", limited: " + limit,
                null);
    }
}
