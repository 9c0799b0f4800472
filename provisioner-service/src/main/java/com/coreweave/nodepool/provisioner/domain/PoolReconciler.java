package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.provisioner.domain.controllers.autoscaling.AutoscalingController;
import com.coreweave.nodepool.provisioner.domain.controllers.autoscaling.DemandOffers;
import com.coreweave.nodepool.provisioner.domain.controllers.configuration.ConfigurationController;
import com.coreweave.nodepool.provisioner.domain.controllers.configuration.ConfigurationWaits;
import com.coreweave.nodepool.provisioner.domain.controllers.configuration.ReconfigureReboots;
import com.coreweave.nodepool.provisioner.domain.controllers.expiry.ExpiryController;
import com.coreweave.nodepool.provisioner.domain.controllers.health.AlertCatalogue;
import com.coreweave.nodepool.provisioner.domain.controllers.health.HealthController;
import com.coreweave.nodepool.provisioner.domain.controllers.health.Remediations;
import com.coreweave.nodepool.provisioner.domain.controllers.lifecycle.DrainCompletions;
import com.coreweave.nodepool.provisioner.domain.controllers.lifecycle.LifecycleController;
import com.coreweave.nodepool.provisioner.domain.controllers.lifecycle.PoolMetadata;
import com.coreweave.nodepool.provisioner.domain.controllers.lifecycle.RemovalRetries;
import com.coreweave.nodepool.provisioner.domain.controllers.scaling.ScalingController;
import com.coreweave.nodepool.provisioner.domain.disruption.DisruptionWindows;
import com.coreweave.nodepool.provisioner.domain.disruption.NodeRemovals;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.Controller;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.Outcome;
import com.coreweave.nodepool.provisioner.domain.model.PoolChanges;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Level-triggered reconciliation of one pool, {@code (state, now) -> (state, facts, events)}: one ordered list of
 * controllers, one per concern, in the order they depend on each other. The pool's node configurations come first (new
 * nodes and retries boot the active one), then the nodes' lifecycle (boots), configuration changes that waited for
 * them, the disruption budgets' windows, reconfigure reboots, node health remediation, expiry, failed removals whose
 * retry is due, drains and metadata, scaling towards the desired count (which also replaces the nodes remediation
 * removed), the autoscaler, the offer to the demand planner, and the summary. It reads only the state, never the
 * history of inputs, so any number of quick spec changes ends at the last one, and running it twice changes nothing.
 */
public final class PoolReconciler {

    /** The component named in the events this service records. */
    public static final String COMPONENT = PoolChanges.COMPONENT;
    /** Reconciles in a row for deadlines that are due at once; each pass of a boot of no time moves a node one step. */
    private static final int MAX_PASSES = 3;

    private final HealthController health;
    /** The controllers in the order they run; an array, so that a pass allocates no iterator. */
    private final Controller[] controllers;

    public PoolReconciler(ProvisioningPolicy policy, AlertCatalogue catalogue) {
        NodeRemovals removals = new NodeRemovals(policy);
        this.health = new HealthController(policy.repair(), catalogue);
        this.controllers = new Controller[] {
            new ConfigurationController(),
            new LifecycleController(policy),
            new ConfigurationWaits(),
            new DisruptionWindows(),
            new ReconfigureReboots(policy),
            new Remediations(policy, removals, catalogue),
            new ExpiryController(policy, removals),
            new RemovalRetries(removals),
            new DrainCompletions(removals),
            new PoolMetadata(),
            new ScalingController(policy, removals),
            new AutoscalingController(policy),
            new DemandOffers(),
            new PoolSummary()
        };
    }

    /** Applies an input to the pool, then reconciles it. */
    public Outcome handle(PoolState state, PoolInput input, Instant now, NodeReleases releases) {
        Outcome applied = PoolInputs.apply(state, input, now, releases, health);
        return registeredAtOnce(then(applied, reconcile(applied.state(), now, releases)));
    }

    /**
     * Reconciles the pool; a deadline that is already due when it ends (a boot that takes no time, a retry due now) is
     * acted on at once by reconciling again, instead of a timer tick later in another transaction.
     */
    public Outcome reconcile(PoolState state, Instant now, NodeReleases releases) {
        Outcome outcome = reconcileOnce(state, now, releases);
        for (int pass = 1; pass < MAX_PASSES && due(outcome.state(), now); pass++) {
            outcome = then(outcome, reconcileOnce(outcome.state(), now, releases));
        }
        return registeredAtOnce(outcome);
    }

    private Outcome reconcileOnce(PoolState state, Instant now, NodeReleases releases) {
        if (state == null || state.accepted() == null) {
            return Outcome.unchanged(state);
        }
        WorkingPool pool = new WorkingPool(state, now, releases);
        for (Controller controller : controllers) {
            try {
                controller.reconcile(pool);
            } catch (RuntimeException e) {
                // Which concern failed, on which pool: the dead letter's reason says it.
                throw new IllegalStateException(
                        "controller " + controller.name() + " failed on pool "
                                + pool.ref().key() + ": " + e,
                        e);
            }
        }
        return pool.outcome();
    }

    private static boolean due(PoolState state, Instant now) {
        return state != null && state.wakeAt() != null && !state.wakeAt().isAfter(now);
    }

    /** The outcome of {@code first} followed by {@code next}: the later state, everything both wrote, in order. */
    private static Outcome then(Outcome first, Outcome next) {
        return new Outcome(
                next.state(),
                concat(first.facts(), next.facts()),
                concat(first.events(), next.events()),
                concat(first.requests(), next.requests()),
                next.offer() != null ? next.offer() : first.offer());
    }

    /**
     * A node assigned and registered (or failed to) in one transaction is written as its registration alone: a node
     * fact carries the whole node, so the assignment says nothing the registration does not, and readers could never
     * see the booting node between them (the transaction makes both visible at once). A boot of no time does this.
     */
    private static Outcome registeredAtOnce(Outcome outcome) {
        List<NodeFact> facts = outcome.facts();
        // The boots that end in this outcome, by where they end: one pass, so a 5,000-node pool's reconcile stays
        // linear.
        Map<BootOf, Integer> ended = new HashMap<>();
        for (int i = 0; i < facts.size(); i++) {
            if ((facts.get(i) instanceof NodeFact.NodeRegistered
                            || facts.get(i) instanceof NodeFact.NodeRegistrationFailed)
                    && facts.get(i) instanceof NodeFact.AboutNode about) {
                ended.put(BootOf.of(about), i);
            }
        }
        List<NodeFact> kept = new ArrayList<>(facts.size());
        for (int i = 0; i < facts.size(); i++) {
            if (!(facts.get(i) instanceof NodeFact.NodeAssigned assigned)
                    || ended.getOrDefault(BootOf.of(assigned), -1) < i) {
                kept.add(facts.get(i));
            }
        }
        return kept.size() == facts.size()
                ? outcome
                : new Outcome(
                        outcome.state(), List.copyOf(kept), outcome.events(), outcome.requests(), outcome.offer());
    }

    /** A node's boot on one grant. */
    private record BootOf(Grant grant, String node) {

        static BootOf of(NodeFact.AboutNode fact) {
            return new BootOf(fact.grant(), fact.node().name());
        }
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        if (first.isEmpty()) {
            return second;
        }
        return Stream.concat(first.stream(), second.stream()).toList();
    }
}
