package com.coreweave.nodepool.provisioner.domain;

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
  Declined
}
