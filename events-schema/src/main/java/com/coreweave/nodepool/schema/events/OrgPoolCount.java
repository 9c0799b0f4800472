package com.coreweave.nodepool.schema.events;

/**
 * How many pools one org has in one partition of the pool topics ({@code org-pools-counted}, compacted, keyed
 * {@code <org>/<partition>}): the api-service's pool processor of that partition writes it as pools come and go, and
 * every instance reads all of them, so a create can be held to the org's pool count quota across partitions.
 */
public record OrgPoolCount(String org, int partition, int pools) {

    public String key() {
        return key(org, partition);
    }

    public static String key(String org, int partition) {
        return org + "/" + partition;
    }
}
