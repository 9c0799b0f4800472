package com.coreweave.nodepool.provisioner.domain.model;

/** Why a node leaves its pool (the {@code cause} of {@code NodeRemoved}, and the reason of {@code CWNodeRemoval}). */
public enum RemovalCause {
    /** The pool scaled down. */
    ScaleDown,
    /** The pool is being deleted. */
    PoolDeleted,
    /** A spot node was taken back. */
    Preempted,
    /** The node kept failing to boot and the pool was disabled. */
    BootFailed,
    /** A grant the pool no longer needed, released before it became a node. */
    Declined,
    /** A user deleted the node; the pool gets another. */
    Deleted,
    /** A node alert took the node out of service; its machine goes to maintenance. */
    Replaced,
    /** A node alert took the node out of service for diagnosis; its machine goes to maintenance. */
    Triaged,
    /** The granted machine could not be delivered; it goes to maintenance and never was a node. */
    DeliverFailed,
    /** The node grew older than the pool's {@code expireAfter}; the pool gets a fresh one. */
    Expired;

    /** Whether the pool gets a replacement: node health, a user or expiry took the node out, not a smaller target. */
    boolean replaced() {
        return this == Deleted || this == Replaced || this == Triaged || this == Expired;
    }
}
