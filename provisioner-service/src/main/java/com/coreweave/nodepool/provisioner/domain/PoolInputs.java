package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.provisioner.domain.controllers.autoscaling.DemandOffers;
import com.coreweave.nodepool.provisioner.domain.controllers.configuration.ConfigurationController;
import com.coreweave.nodepool.provisioner.domain.controllers.health.HealthController;
import com.coreweave.nodepool.provisioner.domain.controllers.lifecycle.LifecycleController;
import com.coreweave.nodepool.provisioner.domain.controllers.lifecycle.UserChanges;
import com.coreweave.nodepool.provisioner.domain.controllers.preemption.PreemptionController;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.Outcome;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.provisioner.domain.model.RemovalCause;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Folds one input into a pool's state, before the pool is reconciled: a newer spec and the ledger's grants here,
 * everything about nodes by the controller of its concern. Facts of another incarnation (uid) and specs of an older
 * generation are ignored, so a replay or a late record cannot roll a pool back.
 */
final class PoolInputs {

    private PoolInputs() {}

    static Outcome apply(
            PoolState state, PoolInput input, Instant now, NodeReleases releases, HealthController health) {
        return switch (input) {
            case PoolInput.ConfigurationRequested request ->
                onPool(state, now, pool -> {
                    if (request.request().uid() == null
                            || request.request().uid().equals(pool.uid())) {
                        ConfigurationController.evaluate(pool, releases);
                        ConfigurationController.request(pool, request.request());
                    }
                });
            // Reaches every pool through the releases it is reconciled with, never as one pool's input.
            case PoolInput.ReleasePublished release -> Outcome.unchanged(state);
            case PoolInput.SpecAccepted spec -> onSpec(state, spec.accepted(), now);
            case PoolInput.GrantsChecked grants -> onGrants(state, grants.checked());
            case PoolInput.ActivityReported activity ->
                onPool(state, now, pool -> LifecycleController.onActivity(pool, activity.report()));
            case PoolInput.PreemptionProgressed preemption ->
                onPool(state, now, pool -> PreemptionController.onPreemption(pool, preemption.fact()));
            case PoolInput.AlertReported alert -> onPool(state, now, pool -> health.onAlert(pool, alert.alert()));
            case PoolInput.DeletionRequested deletion ->
                onPool(state, now, pool -> HealthController.onDeletion(pool, deletion.request()));
            case PoolInput.ChangeRequested change ->
                onPool(state, now, pool -> UserChanges.onChange(pool, change.request()));
            case PoolInput.DemandPlanned planned ->
                onPool(state, now, pool -> pool.changeDemand(pool.demand().withDemand(planned.demand())));
        };
    }

    /** An input about the nodes of a pool the provisioner knows; before its spec arrives there are none. */
    private static Outcome onPool(PoolState state, Instant now, Consumer<WorkingPool> change) {
        if (state == null || state.accepted() == null) {
            return Outcome.unchanged(state);
        }
        WorkingPool pool = new WorkingPool(state, now);
        change.accept(pool);
        return pool.outcome();
    }

    private static Outcome onSpec(PoolState state, NodePoolAccepted received, Instant now) {
        if (received == null) {
            // The pool is gone for good; the ledger frees whatever it still held for it when the tombstone reaches it,
            // and the demand planner stops asking it for nodes.
            return new Outcome(null, List.of(), List.of(), List.of(), DemandOffers.withdrawal(state));
        }
        NodePoolAccepted accepted = kept(received);
        if (state == null) {
            return Outcome.unchanged(PoolState.of(accepted, null));
        }
        if (state.accepted() == null) {
            return Outcome.unchanged(PoolState.of(accepted, state.capacity()));
        }
        if (!state.accepted().uid().equals(accepted.uid())) {
            return newIncarnation(state, accepted, now);
        }
        if (accepted.generation() < state.accepted().generation()) {
            return Outcome.unchanged(state);
        }
        return Outcome.unchanged(
                accepted.generation() > state.accepted().generation()
                        ? state.withNewGeneration(accepted)
                        : state.withAccepted(accepted));
    }

    /**
     * The pool as the provisioner keeps it: without {@code metadata.managedFields}, which say who set which field,
     * concern the api-service alone and grow with every field manager. Its labels and annotations stay: the
     * autoscaler's APPLY names them, as an APPLY sets the metadata it carries.
     */
    private static NodePoolAccepted kept(NodePoolAccepted accepted) {
        ObjectMeta meta = accepted.nodePool().metadata();
        if (meta.managedFields() == null) {
            return accepted;
        }
        return new NodePoolAccepted(
                accepted.org(),
                accepted.nodePool().withMetadata(meta.withManagedFields(null)),
                accepted.validation(),
                accepted.acceptedAt(),
                accepted.lastValid());
    }

    /** A pool re-created under the same name: nodes left of the old one are released, the new one starts empty. */
    private static Outcome newIncarnation(PoolState state, NodePoolAccepted accepted, Instant now) {
        WorkingPool old = new WorkingPool(state, now);
        for (PoolNode node : old.snapshot()) {
            old.remove(node, RemovalCause.PoolDeleted, "The NodePool was deleted and created again.");
        }
        Outcome released = old.outcome();
        CapacityChecked capacity =
                state.capacity() != null && state.capacity().pool().uid().equals(accepted.uid())
                        ? state.capacity()
                        : null;
        return new Outcome(PoolState.of(accepted, capacity), released.facts(), released.events(), List.of());
    }

    private static Outcome onGrants(PoolState state, CapacityChecked checked) {
        if (checked == null) {
            if (state == null || state.accepted() == null) {
                return Outcome.unchanged(null);
            }
            return Outcome.unchanged(state.withCapacity(null, List.of()));
        }
        // The ledger's events about a decision are recorded with the provisioner's own for what it leads to, whatever
        // the decision then changes here; the decision is kept without them.
        List<RecordedEvent> relayed = checked.events() == null ? List.of() : checked.events();
        CapacityChecked decision = checked.withEvents(null);
        if (state == null) {
            return new Outcome(PoolState.of(null, decision), List.of(), relayed, List.of());
        }
        CapacityChecked held = state.capacity();
        boolean sameIncarnation =
                held != null && held.pool().uid().equals(decision.pool().uid());
        if (sameIncarnation && decision.pool().generation() < held.pool().generation()) {
            return new Outcome(state, List.of(), relayed, List.of());
        }
        List<Long> released = state.releasedGrants();
        if (sameIncarnation) {
            // Grant ids are never reused, so once the ledger stops listing a released grant it is gone for good.
            Set<Long> listed = grants(decision).stream().map(Grant::grantId).collect(Collectors.toSet());
            released = released.stream().filter(listed::contains).toList();
        }
        return new Outcome(state.withCapacity(decision, released), List.of(), relayed, List.of());
    }

    private static List<Grant> grants(CapacityChecked checked) {
        return checked.grants() == null ? List.of() : checked.grants();
    }
}
