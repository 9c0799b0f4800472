package com.coreweave.nodepool.provisioner.domain;

import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

/**
 * Level-triggered reconciliation of one pool, {@code (state, now) -> (state, facts, events)}, wired from one
 * controller per concern in the order they depend on each other: the pool's node configurations first (new nodes and
 * retries boot the active one), then the nodes' lifecycle (boots, drains, metadata), reconfigure reboots, node
 * health remediation, failed removals whose retry is due, scaling towards the desired count (which also replaces
 * the nodes remediation removed), the autoscaler, and the summary. It reads only the state, never the history of
 * inputs, so any number of quick spec changes ends at the last one, and running it twice changes nothing.
 */
public final class PoolReconciler {

  /** The component named in the events this service records. */
  public static final String COMPONENT = "provisioner-service";

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
    this.remediations = new Remediations(policy, removals);
    this.scaling = new ScalingController(policy, removals);
  }

  /** Applies an input to the pool, then reconciles it. */
  public Outcome handle(PoolState state, PoolInput input, Instant now, NodeReleases releases) {
    Outcome applied = PoolInputs.apply(state, input, now, releases, health);
    Outcome reconciled = reconcile(applied.state(), now, releases);
    return new Outcome(reconciled.state(), concat(applied.facts(), reconciled.facts()),
        concat(applied.events(), reconciled.events()), concat(applied.requests(), reconciled.requests()));
  }

  public Outcome reconcile(PoolState state, Instant now, NodeReleases releases) {
    if (state == null || state.accepted() == null) {
      return Outcome.unchanged(state);
    }
    WorkingPool pool = new WorkingPool(state, now);
    ConfigurationController.evaluate(pool, releases);
    lifecycle.finishBoots(pool);
    ConfigurationController.completeWaiting(pool);
    reboots.reconcile(pool);
    remediations.reconcile(pool);
    removals.retryDue(pool);
    lifecycle.finishDrains(pool);
    lifecycle.applyPoolMetadata(pool);
    scaling.reconcile(pool);
    AutoscalingController.autoscale(pool, policy);
    PoolSummary.summarize(pool);
    return pool.outcome();
  }

  private static <T> List<T> concat(List<T> first, List<T> second) {
    if (first.isEmpty()) {
      return second;
    }
    return Stream.concat(first.stream(), second.stream()).toList();
  }
}
