package com.coreweave.nodepool.schema.events;

/**
 * How many pools one org has in one partition of the pool topics, and the bytes they take as stored
 * ({@code org-pools-counted}, compacted, keyed {@code <org>/<partition>}): the api-service's pool processor of that
 * partition writes it as pools come, change size and go, and every instance reads all of them, so a write can be held
 * to the org's pool count and storage quotas across partitions. {@code bytes} is the sum of each pool's stored size
 * rounded up to 4 KiB blocks (0 in a count written before the storage quota).
 */
public record OrgPoolCount(String org, int partition, int pools, long bytes) {

    public String key() {
        return key(org, partition);
    }

    public static String key(String org, int partition) {
        return org + "/" + partition;
    }
}
