package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.PendingDemand;
import com.coreweave.nodepool.schema.resource.PendingNodeConfiguration;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the provisioner tells the world about a pool's nodes ({@code nodepool-nodes-changed}, keyed
 * {@code <org>/<pool>}, one partition per pool so facts keep their order). Node facts carry the whole node as it is
 * now, so a reader keeps the latest snapshot per node name; {@link NodePoolReconciled} summarises the pool.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = NodeFact.KIND)
@JsonSubTypes({
    @JsonSubTypes.Type(value = NodeFact.NodeAssigned.class, name = "NodeAssigned"),
    @JsonSubTypes.Type(value = NodeFact.NodeRegistered.class, name = "NodeRegistered"),
    @JsonSubTypes.Type(value = NodeFact.NodeRegistrationFailed.class, name = "NodeRegistrationFailed"),
    @JsonSubTypes.Type(value = NodeFact.NodeUpdated.class, name = "NodeUpdated"),
    @JsonSubTypes.Type(value = NodeFact.NodeRemoved.class, name = "NodeRemoved"),
    @JsonSubTypes.Type(value = NodeFact.NodePoolReconciled.class, name = "NodePoolReconciled")
})
public sealed interface NodeFact {

    /** The property naming a fact's kind: written first, and the simple name of its record. */
    String KIND = "fact";

    /** The kind names of {@code types}, as {@link #KIND} carries them. */
    @SafeVarargs
    static Set<String> kinds(Class<? extends NodeFact>... types) {
        return Arrays.stream(types).map(Class::getSimpleName).collect(Collectors.toUnmodifiableSet());
    }

    PoolRef pool();

    Instant at();

    /** A fact about one node; {@code grant} is the allocation the node runs on. */
    sealed interface AboutNode extends NodeFact {
        Node node();

        Grant grant();
    }

    /** A granted machine was assigned to the pool and starts booting ({@code CWNodeAssigned}). */
    record NodeAssigned(PoolRef pool, Node node, Grant grant, Instant at) implements AboutNode {}

    /** The node booted and joined the cluster ({@code CWNodeRegistered}). */
    record NodeRegistered(PoolRef pool, Node node, Grant grant, Instant at) implements AboutNode {}

    /** A boot failed ({@code CWNodeRegistrationFailed}); the node is booted again unless the pool is disabled. */
    record NodeRegistrationFailed(PoolRef pool, Node node, Grant grant, String message, Instant at)
            implements AboutNode {}

    /** Anything else changed on a node: activity, cordon, drain, labels, taints, health alerts and remediation. */
    record NodeUpdated(PoolRef pool, Node node, Grant grant, String change, Instant at) implements AboutNode {}

    /**
     * The node left the pool and its machine is released: the capacity ledger frees {@code grant} exactly once (a
     * release of a grant it no longer holds is a no-op). {@code cause} is ScaleDown, PoolDeleted, Preempted,
     * BootFailed, Declined (a grant the pool no longer needed; it never became a node, so {@code node} is a placeholder
     * named after the machine, in phase Removed), Deleted (a user deleted the node), or one that takes the machine out
     * of service: Replaced or Triaged (an alert of the node-alert catalogue), DeliverFailed (the machine could not be
     * delivered; {@code node} is a placeholder as for Declined). The ledger moves a machine released with one of those
     * three to maintenance instead of freeing it.
     */
    record NodeRemoved(PoolRef pool, Node node, Grant grant, String cause, Instant at) implements AboutNode {

        /** The causes after which the machine goes to maintenance in the fleet, not back to the free machines. */
        public static final Set<String> OUT_OF_SERVICE = Set.of("Replaced", "Triaged", "DeliverFailed");

        /** Whether the machine is out of service after this release. */
        @JsonIgnore
        public boolean outOfService() {
            return OUT_OF_SERVICE.contains(cause);
        }
    }

    /**
     * The pool's nodes after a reconcile: counts, the pool's active node configuration ({@code nodeProfile}), the
     * configuration waiting to be adopted ({@code pendingNodeConfiguration}, null when none) and the configurations
     * that were once active ({@code nodeConfigurationRevisions}, oldest first, with the nodes booted into each),
     * whether the pool is disabled after repeated boot failures, and whether a pool being deleted has no node left
     * ({@code nodesRemoved}), which lets the pool be finalized. {@code pool.generation} is the generation reconciled;
     * {@code targetNodes} is the count reconciled towards (the spec's target capped by what quota admitted, 0 while
     * deleting). The errors, null when none, are failures of the fleet the provisioner is retrying: a node removal
     * ({@code removalError}), a granted machine it could not deliver ({@code deliveryError}, until a node is delivered
     * again), a configuration it could not stage onto a node for its reconfigure reboot ({@code stagingError}).
     * {@code verdicts} are quota's and capacity's last word on this incarnation, as capacity's decision carried them
     * (null until capacity decided for it): the pool's Quota and Capacity conditions. {@code disruption} is how many
     * nodes are out of service for a voluntary disruption and what the budgets hold back ({@code status.disruption});
     * {@code pendingDemand} what waits for the pool's nodes ({@code status.pendingDemand}, null when nothing does).
     */
    record NodePoolReconciled(
            PoolRef pool,
            int targetNodes,
            int currentNodes,
            int inProgress,
            int removing,
            String nodeProfile,
            PendingNodeConfiguration pendingNodeConfiguration,
            List<NodeConfigurationRevision> nodeConfigurationRevisions,
            boolean deleting,
            boolean nodesRemoved,
            boolean disabled,
            String disabledMessage,
            Instant at,
            String removalError,
            String deliveryError,
            String stagingError,
            Verdicts verdicts,
            DisruptionStatus disruption,
            PendingDemand pendingDemand)
            implements NodeFact {

        public NodePoolReconciled {
            nodeConfigurationRevisions =
                    nodeConfigurationRevisions == null ? List.of() : List.copyOf(nodeConfigurationRevisions);
        }

        /** A summary without fleet errors, verdicts, disruptions or pending demand. */
        public NodePoolReconciled(
                PoolRef pool,
                int targetNodes,
                int currentNodes,
                int inProgress,
                int removing,
                String nodeProfile,
                PendingNodeConfiguration pendingNodeConfiguration,
                List<NodeConfigurationRevision> nodeConfigurationRevisions,
                boolean deleting,
                boolean nodesRemoved,
                boolean disabled,
                String disabledMessage,
                Instant at) {
            this(
                    pool,
                    targetNodes,
                    currentNodes,
                    inProgress,
                    removing,
                    nodeProfile,
                    pendingNodeConfiguration,
                    nodeConfigurationRevisions,
                    deleting,
                    nodesRemoved,
                    disabled,
                    disabledMessage,
                    at,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null);
        }

        /** The same summary as of another time: two summaries that differ only in {@code at} say the same. */
        public NodePoolReconciled at(Instant time) {
            return new NodePoolReconciled(
                    pool,
                    targetNodes,
                    currentNodes,
                    inProgress,
                    removing,
                    nodeProfile,
                    pendingNodeConfiguration,
                    nodeConfigurationRevisions,
                    deleting,
                    nodesRemoved,
                    disabled,
                    disabledMessage,
                    time,
                    removalError,
                    deliveryError,
                    stagingError,
                    verdicts,
                    disruption,
                    pendingDemand);
        }
    }
}
