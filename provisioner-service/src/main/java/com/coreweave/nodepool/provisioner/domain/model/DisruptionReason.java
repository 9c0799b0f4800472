package com.coreweave.nodepool.provisioner.domain.model;

/** The voluntary disruptions a pool's budgets govern, as {@code spec.disruption.budgets[].reasons} names them. */
public enum DisruptionReason {
    /** An active or idle node removed because the pool holds more nodes than it should. */
    ScaleDown,
    /** An outdated node rebooted into the pool's active configuration. */
    Reconfigure,
    /** A node drained for a node alert: rebooted, or removed and replaced. */
    Unhealthy,
    /** A node older than the pool's {@code expireAfter}, replaced by a freshly booted node. */
    Expired
}
