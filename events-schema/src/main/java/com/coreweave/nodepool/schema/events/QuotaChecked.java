package com.coreweave.nodepool.schema.events;

import java.time.Instant;

/**
 * The quota-service's decision for one pool, as {@code capacity-demanded} carries it to the capacity ledger and
 * {@code capacity-checked} on to the provisioner: how many nodes the pool is admitted to hold. {@code reason} is the
 * {@code Quota} condition's reason, or {@code null} when the pool was not checked (invalid or being deleted: admitted
 * 0, no condition). {@code limit} is null when no quota is set; {@code usage} is the org's admitted total for the zone
 * and type including this pool, as it was when this pool's decision was made (a decision is republished when it
 * changes, not whenever another pool's does).
 */
public record QuotaChecked(
        PoolRef pool,
        String reason,
        int requestedNodes,
        int admittedNodes,
        Integer limit,
        int usage,
        boolean deleting,
        String message,
        Instant checkedAt) {}
