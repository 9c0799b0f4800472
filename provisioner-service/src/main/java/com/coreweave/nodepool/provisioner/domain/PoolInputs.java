package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Folds one input into a pool's state, before the pool is reconciled: a newer spec, the ledger's grants, a node's
 * activity, a step of a spot preemption. Facts of another incarnation (uid) and specs of an older generation are
 * ignored, so a replay or a late record cannot roll a pool back.
 */
final class PoolInputs {

  private PoolInputs() {
  }

  static Outcome apply(PoolState state, PoolInput input, Instant now, NodeReleases releases) {
    return switch (input) {
      case PoolInput.ConfigurationRequested request -> onConfigurationRequest(state, request.request(), now, releases);
      // Reaches every pool through the releases it is reconciled with, never as one pool's input.
      case PoolInput.ReleasePublished release -> Outcome.unchanged(state);
      case PoolInput.SpecAccepted spec -> onSpec(state, spec.accepted(), now);
      case PoolInput.GrantsChecked grants -> onGrants(state, grants.checked());
      case PoolInput.ActivityReported activity -> onActivity(state, activity.report(), now);
      case PoolInput.PreemptionProgressed preemption -> onPreemption(state, preemption.fact(), now);
    };
  }

  private static Outcome onSpec(PoolState state, NodePoolAccepted accepted, Instant now) {
    if (accepted == null) {
      // The pool is gone for good; the ledger frees whatever it still held for it when the tombstone reaches it.
      return Outcome.unchanged(null);
    }
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
    return Outcome.unchanged(accepted.generation() > state.accepted().generation()
        ? state.withNewGeneration(accepted) : state.withAccepted(accepted));
  }

  /** A pool re-created under the same name: nodes left of the old one are released, the new one starts empty. */
  private static Outcome newIncarnation(PoolState state, NodePoolAccepted accepted, Instant now) {
    PoolChanges old = new PoolChanges(state, now);
    for (PoolNode node : old.snapshot()) {
      old.remove(node, RemovalCause.PoolDeleted, "The NodePool was deleted and created again.");
    }
    Outcome released = old.outcome();
    CapacityChecked capacity = state.capacity() != null && state.capacity().pool().uid().equals(accepted.uid())
        ? state.capacity() : null;
    return new Outcome(PoolState.of(accepted, capacity), released.facts(), released.events(), List.of());
  }

  private static Outcome onGrants(PoolState state, CapacityChecked checked) {
    if (checked == null) {
      if (state == null || state.accepted() == null) {
        return Outcome.unchanged(null);
      }
      return Outcome.unchanged(state.withCapacity(null, List.of()));
    }
    if (state == null) {
      return Outcome.unchanged(PoolState.of(null, checked));
    }
    CapacityChecked held = state.capacity();
    boolean sameIncarnation = held != null && held.pool().uid().equals(checked.pool().uid());
    if (sameIncarnation && checked.pool().generation() < held.pool().generation()) {
      return Outcome.unchanged(state);
    }
    List<Long> released = state.releasedGrants();
    if (sameIncarnation) {
      // Grant ids are never reused, so once the ledger stops listing a released grant it is gone for good.
      Set<Long> listed = grants(checked).stream().map(Grant::grantId).collect(Collectors.toSet());
      released = released.stream().filter(listed::contains).toList();
    }
    return Outcome.unchanged(state.withCapacity(checked, released));
  }

  private static Outcome onConfigurationRequest(PoolState state, NodeConfigurationRequested request, Instant now,
                                                NodeReleases releases) {
    if (state == null || state.accepted() == null
        || request.uid() != null && !request.uid().equals(state.accepted().uid())) {
      return Outcome.unchanged(state);
    }
    PoolChanges changes = new PoolChanges(state, now);
    NodeConfigurations.evaluate(changes, releases);
    NodeConfigurations.request(changes, request);
    return changes.outcome();
  }

  private static Outcome onActivity(PoolState state, NodeActivityReported report, Instant now) {
    if (state == null || state.accepted() == null || !state.nodes().containsKey(report.node())) {
      return Outcome.unchanged(state);
    }
    PoolChanges changes = new PoolChanges(state, now);
    PoolNode node = changes.nodes.get(report.node());
    PoolNode reported = node.withGraceSeconds(report.terminationGracePeriodSeconds());
    if (node.active() == report.active()) {
      changes.nodes.put(reported.name(), reported);
    } else {
      changes.updated(reported.withNode(NodeTemplate.withActivity(node.node(), report.active(), now)),
          report.active() ? NodeTemplate.ACTIVE : NodeTemplate.IDLE);
    }
    return changes.outcome();
  }

  private static Outcome onPreemption(PoolState state, PreemptionFact fact, Instant now) {
    if (state == null || state.accepted() == null || !state.accepted().uid().equals(fact.pool().uid())
        || !state.nodes().containsKey(fact.node())) {
      return Outcome.unchanged(state);
    }
    PoolChanges changes = new PoolChanges(state, now);
    PoolNode node = changes.nodes.get(fact.node());
    var labels = node.node().metadata().labels();
    switch (fact) {
      case PreemptionFact.PreemptionPending pending -> {
        if (labels.containsKey(Node.LABEL_PENDING_PREEMPTION)) {
          return Outcome.unchanged(state);
        }
        Node cordoned = NodeTemplate.cordonedWithLabel(node.node(), Node.LABEL_PENDING_PREEMPTION, "true");
        changes.updated(leaving(node, cordoned, false, now), "PreemptionPending");
        changes.nodeEvent(node.name(), CwEvent.CWNodeCordoned, "Node " + node.name()
            + " cordoned: spot preemption pending.", pending.reclaimId());
      }
      case PreemptionFact.PreemptionInProgress progress -> {
        if (labels.containsKey(Node.LABEL_EVICTED_AT)) {
          return Outcome.unchanged(state);
        }
        // Label values cannot hold ':', so the drain start is written in epoch seconds.
        Node evicted = NodeTemplate.cordonedWithLabel(node.node(), Node.LABEL_EVICTED_AT,
            Long.toString(progress.evictedAt().getEpochSecond()));
        changes.updated(leaving(node, evicted, true, now), "PreemptionInProgress");
        changes.nodeEvent(node.name(), CwEvent.CWNodeDraining, "Node " + node.name()
            + " draining for spot preemption; workloads get " + progress.gracePeriodSeconds()
            + "s to terminate.", progress.reclaimId());
      }
      case PreemptionFact.NodePreempted preempted -> {
        changes.remove(node, RemovalCause.Preempted, "Removed for spot preemption (" + preempted.cause() + ").");
        changes.poolEvent(CwEvent.CWNodeDeleted, "Node " + node.name() + " deleted for spot preemption.",
            preempted.reclaimId() + "/" + node.name());
      }
    }
    return changes.outcome();
  }

  /**
   * A node marked for preemption is leaving; one already leaving for another reason keeps that reason (and its own
   * drain deadline), since it goes either way. The preemption-service's timeline, not a timer here, removes it.
   */
  private static PoolNode leaving(PoolNode node, Node marked, boolean draining, Instant now) {
    RemovalCause cause = node.leaving() ? node.removal() : RemovalCause.Preempted;
    String message = node.leaving() ? removalMessage(node.node()) : "Spot node is being preempted.";
    return node.leaving(NodeTemplate.leaving(marked, cause, message, draining, now), cause, node.drainDeadline());
  }

  private static String removalMessage(Node node) {
    return node.status().conditions().stream().filter(c -> c.type().equals(Node.CONDITION_REMOVAL))
        .map(c -> c.message()).findFirst().orElse("");
  }

  private static List<Grant> grants(CapacityChecked checked) {
    return checked.grants() == null ? List.of() : checked.grants();
  }
}
