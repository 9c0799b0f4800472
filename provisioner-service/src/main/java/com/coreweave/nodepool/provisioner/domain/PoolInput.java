package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PreemptionFact;

/** What reaches the provisioner about one pool, from each of the topics it reads. */
public sealed interface PoolInput {

    /** The accepted pool from {@code nodepool-accepted}; null for its tombstone (the pool is gone). */
    record SpecAccepted(NodePoolAccepted accepted) implements PoolInput {}

    /** The pool's grants from {@code capacity-checked}; null for its tombstone (the ledger forgot the pool). */
    record GrantsChecked(CapacityChecked checked) implements PoolInput {}

    /** A node reported busy or idle on {@code node-activity-reported}. */
    record ActivityReported(NodeActivityReported report) implements PoolInput {}

    /** A step of a spot node's preemption from {@code spot-preemption-progressed}. */
    record PreemptionProgressed(PreemptionFact fact) implements PoolInput {}

    /** A user's upgrade, rollback or reconfigure request from {@code nodepool-configuration-requested}. */
    record ConfigurationRequested(NodeConfigurationRequested request) implements PoolInput {}

    /**
     * An upstream release of a release train from {@code node-release-published}: not about one pool, so the processor
     * keeps it and reconciles every pool of its partition with it.
     */
    record ReleasePublished(NodeReleasePublished release) implements PoolInput {}

    /** Monitoring raised or resolved an alert on a node, from {@code node-alert-raised}. */
    record AlertReported(CloudEvent<NodeAlert> alert) implements PoolInput {}

    /** A user asked for one node to be deleted (and replaced), from {@code node-deletion-requested}. */
    record DeletionRequested(NodeDeletionRequested request) implements PoolInput {}

    /** A user's cordon, labels, annotations, taints or eviction of one node, from {@code node-change-requested}. */
    record ChangeRequested(NodeChangeRequested request) implements PoolInput {}

    /** The pending demand the demand planner gives the pool, from {@code pool-demand-planned}. */
    record DemandPlanned(PoolDemand demand) implements PoolInput {}
}
