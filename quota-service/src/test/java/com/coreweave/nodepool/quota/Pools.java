package com.coreweave.nodepool.quota;

import com.coreweave.nodepool.quota.domain.PoolDemand;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import java.time.Instant;

/** Accepted pools and demands as the api-service's pool processor writes them, for tests. */
public final class Pools {

    public static final String ZONE = "US-EAST-04A";
    public static final String TYPE = "gd-8xa100-i128";
    public static final Instant CREATED = Instant.parse("2025-06-09T14:48:54Z");

    private Pools() {}

    public static NodePoolAccepted accepted(String org, String name, String uid, long generation, int target) {
        return accepted(org, name, uid, generation, target, ZONE, TYPE, true, false);
    }

    public static NodePoolAccepted accepted(
            String org,
            String name,
            String uid,
            long generation,
            int target,
            String zone,
            String type,
            boolean valid,
            boolean deleting) {
        ObjectMeta meta = new ObjectMeta(
                name, uid, generation, "1", CREATED, deleting ? CREATED.plusSeconds(60) : null, null, null);
        NodePoolSpec spec = new NodePoolSpec(
                        null, type, target, null, null, null, null, null, null, null, null, null, null, null)
                .withDefaults(zone);
        Validation validation = valid
                ? new Validation(Conditions.Validated.VALID, "NodePool configuration is valid.")
                : new Validation(Conditions.Validated.INVALID, "instance type " + type + " is not offered");
        return new NodePoolAccepted(org, NodePool.of(meta, spec, null), validation, CREATED);
    }

    /** A valid demand of org "demo" for the default zone and type. */
    public static PoolDemand demand(String name, String uid, long generation, int target) {
        return PoolDemand.of(QuotaDemanded.of(accepted("demo", name, uid, generation, target)));
    }

    public static PoolDemand invalid(String name, String uid, long generation, int target) {
        return PoolDemand.of(
                QuotaDemanded.of(accepted("demo", name, uid, generation, target, ZONE, TYPE, false, false)));
    }

    public static PoolDemand deleting(String name, String uid, long generation, int target) {
        return PoolDemand.of(QuotaDemanded.of(accepted("demo", name, uid, generation, target, ZONE, TYPE, true, true)));
    }

    public static PoolRef ref(String name, String uid, long generation) {
        return demand(name, uid, generation, 0).ref();
    }
}
