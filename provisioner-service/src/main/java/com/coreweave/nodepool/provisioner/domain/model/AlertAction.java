package com.coreweave.nodepool.provisioner.domain.model;

/**
 * What the provisioner does about a node alert (the node-alert catalogue, {@code node-alerts.yaml}), from the least to
 * the most disruptive: a node with several active alerts gets the strongest of their actions.
 */
public enum AlertAction {
    /** Record only: the node condition shows the alert. */
    None,
    /** Restart a software component on the DPU; the host stays in service (no cordon, drain or reboot). */
    Restart,
    /** Reboot or reset the node in place. */
    Reboot,
    /** Take the node out of service and replace it; its machine goes to maintenance. */
    Replace,
    /** Take the node out of service for diagnosis and replace it; its machine goes to maintenance. */
    Triage;

    AlertAction strongest(AlertAction other) {
        return other.compareTo(this) > 0 ? other : this;
    }

    /** Whether the node leaves the pool for good. */
    boolean outOfService() {
        return this == Replace || this == Triage;
    }
}
