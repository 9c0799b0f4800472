package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import java.util.Map;

/**
 * How many pools an org may have, as Kubernetes' {@code count/<resource>} quota: one limit for every org, and an
 * operator's own for some. A create past it is refused (403, as Kubernetes refuses it); nothing that exists is touched.
 */
public record PoolCountQuota(int defaultLimit, Map<String, Integer> perOrg) {

    public PoolCountQuota {
        perOrg = Map.copyOf(perOrg);
    }

    public int limit(String org) {
        return perOrg.getOrDefault(org, defaultLimit);
    }

    /** The refusal of one more pool {@code name} for an org that has {@code used} pools; null when it may have it. */
    public Status refusal(String org, String name, int used) {
        int limit = limit(org);
        if (used < limit) {
            return null;
        }
        return Statuses.failure(
                403,
                "Forbidden",
                "nodepools.compute.coreweave.com \"" + name + "\" is forbidden: "
                        + "exceeded quota: count/nodepools.compute.coreweave.com, requested: 1, used: " + used
                        + ", limited: " + limit,
                null);
    }
}
