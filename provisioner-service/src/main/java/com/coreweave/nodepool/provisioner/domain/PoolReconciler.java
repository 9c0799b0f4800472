package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Level-triggered reconciliation of one pool, {@code (state, now) -> (state, facts, events)}, wired from one controller
 * per concern in the order they depend on each other: the pool's node configurations first (new nodes and retries boot
 * the active one), then the nodes' lifecycle (boots, drains, metadata), reconfigure reboots, node health remediation,
 * failed removals whose retry is due, scaling towards the desired count (which also replaces the nodes remediation
 * removed), the autoscaler, and the summary. It reads only the state, never the history of inputs, so any number of
 * quick spec changes ends at the last one, and running it twice changes nothing.
 */
public final class PoolReconciler {

    /** The component named in the events this service records. */
    public static final String COMPONENT = "provisioner-service";
    /** Reconciles in a row for deadlines that are due at once; each pass of a boot of no time moves a node one step. */
    private static final int MAX_PASSES = 3;

    private final NodeRemovals removals;
    private final LifecycleController lifecycle;
    private final ReconfigureReboots reboots;
    private final HealthController health;
    private final Remediations remediations;
    private final ScalingController scaling;
    private final ProvisioningPolicy policy;

    public PoolReconciler(ProvisioningPolicy policy, AlertCatalogue catalogue) {
        this.removals = new NodeRemovals(policy);
        this.policy = policy;
        this.lifecycle = new LifecycleController(policy, removals);
        this.reboots = new ReconfigureReboots(policy);
        this.health = new HealthController(policy.repair(), catalogue);
        this.remediations = new Remediations(policy, removals, catalogue);
        this.scaling = new ScalingController(policy, removals);
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
        WorkingPool pool = new WorkingPool(state, now);
        ConfigurationController.evaluate(pool, releases);
        lifecycle.finishBoots(pool);
        ConfigurationWaits.completeWaiting(pool);
        DisruptionAllowance.begin(pool);
        reboots.reconcile(pool);
        remediations.reconcile(pool);
        removals.retryDue(pool);
        lifecycle.finishDrains(pool);
        lifecycle.applyPoolMetadata(pool);
        scaling.reconcile(pool);
        AutoscalingController.autoscale(pool, policy);
        DemandOffers.offer(pool);
        PoolSummary.summarize(pool);
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
