package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.kit.faults.FaultPoints;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import java.time.Instant;
import java.util.List;

/**
 * The api-service's fault points: where an operator's armed fault ({@code /admin/faults}) fails a pool's validation or
 * an update of an existing pool, so that the same failure path runs as for a real failure.
 */
public final class PoolFaultPoints {

    /** Validation fails: Validated {@code InternalError}, and the pool is validated again until it passes. */
    public static final String VALIDATION = "validation";

    /** An update of an existing pool fails: a 500 answer and {@code CWNodePoolNodesRequestFailed} on the pool. */
    public static final String NODES_REQUEST = "nodes-request";

    public static final FaultPoints POINTS = FaultPoints.of(VALIDATION, NODES_REQUEST);

    private PoolFaultPoints() {}

    /** The verdict of a validation an armed fault fails, or null to validate as usual. */
    public static PlatformValidator.Verdict validation(
            InjectedFaults faults, PoolKey pool, NodePoolSpec spec, Instant now) {
        String injected = faults.fire(VALIDATION, spec.region(), pool.org(), pool.pool(), now);
        return injected == null
                ? null
                : new PlatformValidator.Verdict(
                        new Validation(
                                Conditions.Validated.INTERNAL_ERROR,
                                "Validation failed: " + injected + "; the NodePool will be validated again."),
                        List.of());
    }

    /** Why an armed fault fails this change of an existing pool, or null when it goes on. */
    public static Status requestFailure(InjectedFaults faults, NodePoolAccepted current, Instant now) {
        PoolRef ref = PoolRef.of(current);
        String injected = faults.fire(NODES_REQUEST, ref.zone(), ref.org(), ref.pool(), now);
        return injected == null
                ? null
                : Statuses.failure(
                        500, "InternalError", "Updating NodePool " + ref.pool() + " failed: " + injected, null);
    }
}
