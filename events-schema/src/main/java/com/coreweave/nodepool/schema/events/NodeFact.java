package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.PendingNodeConfiguration;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;
import java.util.List;

/**
 * What the provisioner tells the world about a pool's nodes ({@code nodepool-nodes-changed}, keyed
 * {@code <org>/<pool>}, one partition per pool so facts keep their order). Node facts carry the whole node as it is
 * now, so a reader keeps the latest snapshot per node name; {@link NodePoolReconciled} summarises the pool.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "fact")
@JsonSubTypes({
    @JsonSubTypes.Type(value = NodeFact.NodeAssigned.class, name = "NodeAssigned"),
    @JsonSubTypes.Type(value = NodeFact.NodeRegistered.class, name = "NodeRegistered"),
    @JsonSubTypes.Type(value = NodeFact.NodeRegistrationFailed.class, name = "NodeRegistrationFailed"),
    @JsonSubTypes.Type(value = NodeFact.NodeUpdated.class, name = "NodeUpdated"),
    @JsonSubTypes.Type(value = NodeFact.NodeRemoved.class, name = "NodeRemoved"),
    @JsonSubTypes.Type(value = NodeFact.NodePoolReconciled.class, name = "NodePoolReconciled")
})
public sealed interface NodeFact {

  PoolRef pool();

  Instant at();

  /** A fact about one node; {@code grant} is the allocation the node runs on. */
  sealed interface AboutNode extends NodeFact {
    Node node();

    Grant grant();
  }

  /** A granted machine was assigned to the pool and starts booting ({@code CWNodeAssigned}). */
  record NodeAssigned(PoolRef pool, Node node, Grant grant, Instant at) implements AboutNode {
  }

  /** The node booted and joined the cluster ({@code CWNodeRegistered}). */
  record NodeRegistered(PoolRef pool, Node node, Grant grant, Instant at) implements AboutNode {
  }

  /** A boot failed ({@code CWNodeRegistrationFailed}); the node is booted again unless the pool is disabled. */
  record NodeRegistrationFailed(PoolRef pool, Node node, Grant grant, String message, Instant at)
      implements AboutNode {
  }

  /** Anything else changed on a node: activity, cordon, drain, labels, taints. */
  record NodeUpdated(PoolRef pool, Node node, Grant grant, String change, Instant at) implements AboutNode {
  }

  /**
   * The node left the pool and its machine is released: the capacity ledger frees {@code grant} exactly once
   * (a release of a grant it no longer holds is a no-op). {@code cause} is ScaleDown, PoolDeleted, Preempted,
   * BootFailed or Declined (a grant the pool no longer needed; it never became a node, so {@code node} is a
   * placeholder named after the machine, in phase Removed).
   */
  record NodeRemoved(PoolRef pool, Node node, Grant grant, String cause, Instant at) implements AboutNode {
  }

  /**
   * The pool's nodes after a reconcile: counts, the pool's active node configuration ({@code nodeProfile}), the
   * configuration waiting to be adopted ({@code pendingNodeConfiguration}, null when none) and the configurations
   * that were once active ({@code nodeConfigurationRevisions}, oldest first, with the nodes booted into each),
   * whether the pool is disabled after repeated boot failures, and whether a pool being deleted has no node left
   * ({@code nodesRemoved}), which lets the pool be finalized. {@code pool.generation} is the generation reconciled;
   * {@code targetNodes} is the count reconciled towards (the spec's target capped by what quota admitted, 0 while
   * deleting).
   */
  record NodePoolReconciled(PoolRef pool, int targetNodes, int currentNodes, int inProgress, int removing,
                            String nodeProfile, PendingNodeConfiguration pendingNodeConfiguration,
                            List<NodeConfigurationRevision> nodeConfigurationRevisions, boolean deleting,
                            boolean nodesRemoved, boolean disabled, String disabledMessage, Instant at)
      implements NodeFact {

    public NodePoolReconciled {
      nodeConfigurationRevisions = nodeConfigurationRevisions == null ? List.of()
          : List.copyOf(nodeConfigurationRevisions);
    }
  }
}
