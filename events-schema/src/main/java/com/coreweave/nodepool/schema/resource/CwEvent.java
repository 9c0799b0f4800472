package com.coreweave.nodepool.schema.resource;

/**
 * Every event reason of reference 000 (the {@code CW*} table) and of the spot reference (004), and the autoscaler's
 * two, with the Kubernetes event type it is emitted with. The reason string is exactly what users filter on.
 */
public enum CwEvent {
    CWDrainNode(CwEvent.NORMAL),
    CWInstanceTypeNotInZone(CwEvent.WARNING),
    CWInsufficientCapacity(CwEvent.WARNING),
    CWInvalidInstanceType(CwEvent.WARNING),
    CWNodeAssigned(CwEvent.NORMAL),
    CWNodeDeleted(CwEvent.NORMAL),
    CWNodeDeletionRequestSuccess(CwEvent.NORMAL),
    CWNodeDeliverFail(CwEvent.WARNING),
    CWNodePoolCreated(CwEvent.NORMAL),
    CWNodePoolDeleted(CwEvent.NORMAL),
    CWNodePoolDisabled(CwEvent.WARNING),
    CWNodePoolMetadata(CwEvent.NORMAL),
    CWNodePoolNodesRemoved(CwEvent.NORMAL),
    CWNodePoolNodesRemoveError(CwEvent.WARNING),
    CWNodePoolNodesRequestFailed(CwEvent.WARNING),
    CWNodePoolQuotaCheckFailed(CwEvent.WARNING),
    CWNodePoolRemoveNodes(CwEvent.NORMAL),
    CWNodePoolScaledDown(CwEvent.NORMAL),
    CWNodePoolScaledUp(CwEvent.NORMAL),
    CWNodeRegistered(CwEvent.NORMAL),
    CWNodeRegistrationFailed(CwEvent.WARNING),
    CWNodeRequestQueued(CwEvent.NORMAL),
    CWOverQuota(CwEvent.WARNING),
    CWNodeCordoned(CwEvent.NORMAL),
    CWNodeUncordoned(CwEvent.NORMAL),
    CWNodeMarkedPrepareForTerminate(CwEvent.NORMAL),
    CWNodeDraining(CwEvent.NORMAL),
    CWNodeDrainingPDBViolation(CwEvent.WARNING),
    CWNodeDrainingForceDelete(CwEvent.WARNING),
    CWNodePreparedForTerminate(CwEvent.NORMAL),
    CWNodeTainted(CwEvent.NORMAL),
    CWNodeUntainted(CwEvent.NORMAL),
    CWNodeConfigStaged(CwEvent.NORMAL),
    CWPendingNodeConfig(CwEvent.NORMAL),
    CWConfigStaged(CwEvent.NORMAL),
    CWReconfigureRebooted(CwEvent.NORMAL),
    CWNodePoolNodeConfigUpdatePending(CwEvent.NORMAL),
    CWNodePoolNodeConfigUpdated(CwEvent.NORMAL),
    CWNodePoolNoPendingConfiguration(CwEvent.WARNING),
    CWNodePoolNodeConfigRollbackFailed(CwEvent.WARNING),
    CWNodePoolNodeConfigUpdateConflict(CwEvent.WARNING),
    CWNodeConfigStagingFailed(CwEvent.WARNING),
    CWManualUpgradeTrigger(CwEvent.NORMAL),
    CWManualRollbackTrigger(CwEvent.NORMAL),
    /** Not in the reference: the autoscaler's events, named as the Kubernetes cluster-autoscaler names its own. */
    TriggeredScaleUp(CwEvent.NORMAL),
    ScaleDown(CwEvent.NORMAL),
    /** Pending workloads that fit the pool did not make it scale up; the message says why. */
    NotTriggerScaleUp(CwEvent.NORMAL),
    PreemptionPending("Preemption pending", CwEvent.WARNING),
    PreemptionInProgress("Preemption in progress", CwEvent.WARNING),
    DeletedForPreemption("Deleted for preemption", CwEvent.WARNING),
    /** Not in the reference: a disruption a pool's budget holds back, named as Karpenter names its own. */
    DisruptionBlocked(CwEvent.NORMAL),
    /**
     * Not in the reference: automated repair stopped, more of the pool's nodes unhealthy than its
     * {@code lifecycle.maxUnhealthy}; named as Karpenter names its own.
     */
    NodeRepairBlocked(CwEvent.WARNING),
    /** Not in the reference: a node older than the pool's {@code disruption.expireAfter} is rotated (Karpenter's). */
    NodeExpired(CwEvent.NORMAL),
    /** Not in the reference: a software component on the node's DPU restarts, the host serving meanwhile. */
    DPUComponentRestarting(CwEvent.NORMAL),
    DPUComponentRestarted(CwEvent.NORMAL),
    /**
     * Not in the reference, whose {@code CWNodeCordoned} is the platform's own automation: a user's cordon and
     * uncordon, with the reasons the kubelet records for them.
     */
    NodeNotSchedulable(CwEvent.NORMAL),
    NodeSchedulable(CwEvent.NORMAL),
    /** Not in the reference: a user's taint added or removed (Kubernetes records none; named as the kubelet's). */
    NodeTaintedByUser(CwEvent.NORMAL),
    NodeUntaintedByUser(CwEvent.NORMAL);

    private final String reason;
    private final String type;

    /** The two Kubernetes event types. */
    public static final String NORMAL = "Normal";

    public static final String WARNING = "Warning";

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
