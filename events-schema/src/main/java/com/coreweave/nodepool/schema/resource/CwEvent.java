package com.coreweave.nodepool.schema.resource;

/**
 * Every event reason of reference 000 (the {@code CW*} table) and of the spot reference (004), and the autoscaler's
 * two, with the Kubernetes event type it is emitted with. The reason string is exactly what users filter on.
 */
public enum CwEvent {
  CWDrainNode(KubeEvent.NORMAL),
  CWInstanceTypeNotInZone(KubeEvent.WARNING),
  CWInsufficientCapacity(KubeEvent.WARNING),
  CWInvalidInstanceType(KubeEvent.WARNING),
  CWNodeAssigned(KubeEvent.NORMAL),
  CWNodeDeleted(KubeEvent.NORMAL),
  CWNodeDeletionRequestSuccess(KubeEvent.NORMAL),
  CWNodeDeliverFail(KubeEvent.WARNING),
  CWNodePoolCreated(KubeEvent.NORMAL),
  CWNodePoolDeleted(KubeEvent.NORMAL),
  CWNodePoolDisabled(KubeEvent.WARNING),
  CWNodePoolMetadata(KubeEvent.NORMAL),
  CWNodePoolNodesRemoved(KubeEvent.NORMAL),
  CWNodePoolNodesRemoveError(KubeEvent.WARNING),
  CWNodePoolNodesRequestFailed(KubeEvent.WARNING),
  CWNodePoolQuotaCheckFailed(KubeEvent.WARNING),
  CWNodePoolRemoveNodes(KubeEvent.NORMAL),
  CWNodePoolScaledDown(KubeEvent.NORMAL),
  CWNodePoolScaledUp(KubeEvent.NORMAL),
  CWNodeRegistered(KubeEvent.NORMAL),
  CWNodeRegistrationFailed(KubeEvent.WARNING),
  CWNodeRequestQueued(KubeEvent.NORMAL),
  CWOverQuota(KubeEvent.WARNING),
  CWNodeCordoned(KubeEvent.NORMAL),
  CWNodeUncordoned(KubeEvent.NORMAL),
  CWNodeMarkedPrepareForTerminate(KubeEvent.NORMAL),
  CWNodeDraining(KubeEvent.NORMAL),
  CWNodeDrainingPDBViolation(KubeEvent.WARNING),
  CWNodeDrainingForceDelete(KubeEvent.WARNING),
  CWNodePreparedForTerminate(KubeEvent.NORMAL),
  CWNodeTainted(KubeEvent.NORMAL),
  CWNodeUntainted(KubeEvent.NORMAL),
  CWNodeConfigStaged(KubeEvent.NORMAL),
  CWPendingNodeConfig(KubeEvent.NORMAL),
  CWConfigStaged(KubeEvent.NORMAL),
  CWReconfigureRebooted(KubeEvent.NORMAL),
  CWNodePoolNodeConfigUpdatePending(KubeEvent.NORMAL),
  CWNodePoolNodeConfigUpdated(KubeEvent.NORMAL),
  CWNodePoolNoPendingConfiguration(KubeEvent.WARNING),
  CWNodePoolNodeConfigRollbackFailed(KubeEvent.WARNING),
  CWNodePoolNodeConfigUpdateConflict(KubeEvent.WARNING),
  CWNodeConfigStagingFailed(KubeEvent.WARNING),
  CWManualUpgradeTrigger(KubeEvent.NORMAL),
  CWManualRollbackTrigger(KubeEvent.NORMAL),
  /** Not in the reference: the autoscaler's events, named as the Kubernetes cluster-autoscaler names its own. */
  TriggeredScaleUp(KubeEvent.NORMAL),
  ScaleDown(KubeEvent.NORMAL),
  PreemptionPending("Preemption pending", KubeEvent.WARNING),
  PreemptionInProgress("Preemption in progress", KubeEvent.WARNING),
  DeletedForPreemption("Deleted for preemption", KubeEvent.WARNING);

  private final String reason;
  private final String type;

  CwEvent(String type) {
    this.reason = name();
    this.type = type;
  }

  CwEvent(String reason, String type) {
    this.reason = reason;
    this.type = type;
  }

  /** The event's {@code reason} as users see it (the spot reasons contain spaces). */
  public String reason() {
    return reason;
  }

  /** {@code Normal} or {@code Warning}. */
  public String type() {
    return type;
  }
}
