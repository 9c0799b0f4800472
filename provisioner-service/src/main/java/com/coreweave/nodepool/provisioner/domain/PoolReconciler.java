package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.provisioner.domain.PoolState.Scaling;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Level-triggered reconciliation of one pool: {@code (state, now) -> (state, facts, events)}. It finishes boots and
 * drains whose deadline has come, applies the pool's metadata to its nodes, then moves the nodes towards the desired
 * count (the spec's {@code targetNodes} capped by what quota admitted, 0 while deleting): grants become booting nodes,
 * grants beyond the desired
 * count are released, extra nodes leave as {@link ScaleDownSelector} chooses. It reads only the state, never the
 * history of inputs, so any number of quick spec changes ends at the last one, and running it twice changes nothing.
 */
public final class PoolReconciler {

  /** The component named in the events this service records. */
  public static final String COMPONENT = "provisioner-service";

  private PoolReconciler() {
  }

  /** Applies an input to the pool, then reconciles it. */
  public static Outcome handle(PoolState state, PoolInput input, Instant now, ProvisioningPolicy policy,
                               NodeReleases releases) {
    Outcome applied = PoolInputs.apply(state, input, now, releases);
    Outcome reconciled = reconcile(applied.state(), now, policy, releases);
    return new Outcome(reconciled.state(), concat(applied.facts(), reconciled.facts()),
        concat(applied.events(), reconciled.events()), concat(applied.requests(), reconciled.requests()));
  }

  public static Outcome reconcile(PoolState state, Instant now, ProvisioningPolicy policy, NodeReleases releases) {
    if (state == null || state.accepted() == null) {
      return Outcome.unchanged(state);
    }
    PoolChanges pool = new PoolChanges(state, now);
    NodeConfigurations.evaluate(pool, releases);
    finishBoots(pool, policy);
    NodeConfigurations.completeWaiting(pool);
    rebootOutdatedNodes(pool, policy);
    finishDrains(pool);
    applyPoolMetadata(pool);
    int desired = pool.deleting() ? 0 : admittedTarget(pool);
    keepLeavingNodes(pool, desired);
    useGrants(pool, desired, policy);
    scaleDown(pool, desired, policy);
    closeEpisode(pool, desired);
    Autoscaler.autoscale(pool, policy);
    summarize(pool, desired);
    return pool.outcome();
  }

  /**
   * The spec's target, but never more than the quota admitted (the capacity ledger's demand for this incarnation):
   * grants made for an older, larger demand may still arrive after quota lowered it, and must not become nodes the
   * org is not admitted to hold — the ledger never takes a grant back, so they would stay.
   */
  private static int admittedTarget(PoolChanges pool) {
    int target = pool.spec().target();
    boolean sameIncarnation = pool.capacity != null && pool.capacity.pool().uid().equals(pool.accepted.uid());
    return sameIncarnation ? Math.min(target, pool.capacity.requestedNodes()) : target;
  }

  /** Boots whose time is up register, or fail and boot again, or, once the pool is disabled, leave. */
  private static void finishBoots(PoolChanges pool, ProvisioningPolicy policy) {
    String profile = pool.activeProfile();
    for (PoolNode node : pool.snapshot()) {
      if (node.phase() != Node.Phase.Booting || node.bootDeadline() == null || node.bootDeadline().isAfter(pool.now)) {
        continue;
      }
      int attempt = node.node().status().bootAttempt();
      String cause = pool.uid() + "/" + node.grant().grantId() + "/" + attempt;
      String failure = SimulatedBoot.failure(policy, pool.spec(), node.name(), attempt);
      if (failure == null) {
        pool.bootFailureStreak = 0;
        if (node.reconfigure() == PoolNode.Reconfigure.Rebooting) {
          pool.registered(node.registered(NodeTemplate.registered(node.node(), pool.now)).withReconfigure(null));
          pool.nodeEvent(node.name(), CwEvent.CWReconfigureRebooted, "Node " + node.name() + " reconfigure "
              + "rebooted into node configuration " + node.node().status().nodeProfile() + ".", cause);
          continue;
        }
        pool.registered(node.registered(NodeTemplate.registered(node.node(), pool.now)));
        pool.nodeEvent(node.name(), CwEvent.CWNodeRegistered, "Node " + node.name() + " registered in the cluster.",
            cause);
        continue;
      }
      pool.bootFailureStreak++;
      Node failed = NodeTemplate.failed(node.node(), failure, pool.now);
      pool.bootFailed(node, failed, failure);
      pool.nodeEvent(node.name(), CwEvent.CWNodeRegistrationFailed, failure, cause);
      if (!pool.disabled() && pool.bootFailureStreak >= policy.maxConsecutiveBootFailures()) {
        pool.disabledMessage = pool.bootFailureStreak + " boot failures in a row with node configuration "
            + node.node().status().nodeProfile() + "; contact support. Last: " + failure;
        NodeConfigurations.disable(pool, node.node().status().nodeProfile());
        pool.poolEvent(CwEvent.CWNodePoolDisabled, "NodePool disabled: " + pool.disabledMessage,
            pool.uid() + "/generation-" + pool.accepted.generation());
      }
      if (pool.disabled()) {
        pool.remove(node.withNode(failed), RemovalCause.BootFailed, "Removed after repeated boot failures.");
        pool.poolEvent(CwEvent.CWNodeDeleted, "Node " + node.name() + " deleted: the NodePool is disabled after "
            + "repeated boot failures.", pool.uid() + "/" + node.grant().grantId());
      } else {
        pool.updated(node.booting(NodeTemplate.rebooting(failed, profile, pool.now),
            pool.now.plus(policy.bootTime())), "BootRetried");
      }
    }
  }

  /**
   * Outdated nodes asked to reconfigure-reboot do so once they are idle, and at most
   * {@code maxConcurrentReboots} at a time, so the pool keeps serving: a busy node keeps its workload until the
   * platform team reports it idle. The reboot is a boot into the active configuration, with the boot time and the
   * failure handling of any boot.
   */
  private static void rebootOutdatedNodes(PoolChanges pool, ProvisioningPolicy policy) {
    String profile = pool.activeProfile();
    long rebooting = pool.nodes.values().stream()
        .filter(n -> n.reconfigure() == PoolNode.Reconfigure.Rebooting).count();
    for (PoolNode node : pool.snapshot()) {
      if (node.reconfigure() != PoolNode.Reconfigure.Requested) {
        continue;
      }
      if (node.leaving() || profile.equals(node.node().status().nodeProfile())) {
        pool.nodes.put(node.name(), node.withReconfigure(null));
        continue;
      }
      if (node.active() || node.phase() != Node.Phase.Registered || pool.disabled()
          || rebooting >= policy.maxConcurrentReboots()) {
        continue;
      }
      rebooting++;
      Node rebooted = NodeTemplate.rebooting(node.node(), profile, pool.now);
      pool.updated(node.booting(rebooted, pool.now.plus(policy.bootTime()))
          .withReconfigure(PoolNode.Reconfigure.Rebooting), "ReconfigureReboot");
      pool.nodeEvent(node.name(), CwEvent.CWConfigStaged, "Node configuration " + profile + " staged for the "
          + "node's reconfigure reboot.", pool.uid() + "/" + node.grant().grantId() + "/"
          + rebooted.status().bootAttempt());
    }
  }

  /** A drained node leaves once its workload is idle, or when its grace period is over, whichever comes first. */
  private static void finishDrains(PoolChanges pool) {
    for (PoolNode node : pool.snapshot()) {
      boolean drainedHere = node.removal() == RemovalCause.ScaleDown || node.removal() == RemovalCause.PoolDeleted;
      if (!drainedHere || node.phase() != Node.Phase.Draining) {
        continue;
      }
      boolean overdue = node.drainDeadline() != null && !node.drainDeadline().isAfter(pool.now);
      if (node.active() && !overdue) {
        continue;
      }
      String why = node.active() ? "its grace period ended" : "its workload finished";
      pool.remove(node, node.removal(), "Drained: " + why + ".");
      pool.poolEvent(CwEvent.CWNodeDeleted, "Node " + node.name() + " deleted after draining: " + why + ".",
          pool.uid() + "/" + node.grant().grantId());
    }
  }

  /** Labels, annotations and taints of the spec are applied to existing nodes too. */
  private static void applyPoolMetadata(PoolChanges pool) {
    int changed = 0;
    for (PoolNode node : pool.snapshot()) {
      Node next = NodeTemplate.withPoolMetadata(node.node(), pool.ref(), pool.spec());
      if (!next.equals(node.node())) {
        pool.updated(node.withNode(next), "Metadata");
        changed++;
      }
    }
    if (changed > 0) {
      pool.poolEvent(CwEvent.CWNodePoolMetadata, "Labels, annotations and taints of " + changed
          + " node(s) updated to the NodePool's spec.", pool.uid() + "/generation-" + pool.accepted.generation());
    }
  }

  /** When the target rises again, nodes still draining for a scale-down are kept before any new node boots. */
  private static void keepLeavingNodes(PoolChanges pool, int desired) {
    if (pool.deleting()) {
      return;
    }
    int shortfall = desired - pool.staying().size();
    List<PoolNode> reclaimable = pool.nodes.values().stream()
        .filter(n -> n.removal() == RemovalCause.ScaleDown)
        .sorted(ScaleDownSelector.NEWEST_FIRST.reversed())
        .limit(Math.max(0, shortfall))
        .toList();
    if (reclaimable.isEmpty()) {
      return;
    }
    pool.startEpisode(Scaling.UP);
    for (PoolNode node : reclaimable) {
      pool.updated(node.staying(NodeTemplate.staying(node.node(), pool.now)), "Uncordoned");
      pool.nodeEvent(node.name(), CwEvent.CWNodeUncordoned, "Node " + node.name()
          + " uncordoned: the NodePool needs it again.", pool.episodeCause() + "/" + node.grant().grantId());
    }
  }

  /**
   * Each grant not yet a node and never released fills a free place: a new booting node, or, while the pool may not
   * boot nodes (invalid or disabled), a grant held for later. Grants beyond the desired count are released at once.
   */
  private static void useGrants(PoolChanges pool, int desired, ProvisioningPolicy policy) {
    Set<Long> used = new HashSet<>();
    Set<String> machines = new HashSet<>(pool.nodes.keySet());
    pool.nodes.values().forEach(n -> used.add(n.grant().grantId()));
    int free = desired - pool.staying().size();
    boolean mayBoot = !pool.deleting() && !pool.disabled() && pool.accepted.validation() != null
        && pool.accepted.validation().valid();
    String profile = pool.activeProfile();
    for (Grant grant : pool.grants()) {
      // A machine still leaving under an older grant cannot be a second node yet.
      if (pool.released.contains(grant.grantId()) || !used.add(grant.grantId()) || machines.contains(grant.machine())) {
        continue;
      }
      if (free <= 0) {
        pool.decline(grant);
        continue;
      }
      free--;
      if (!mayBoot) {
        continue;
      }
      pool.startEpisode(Scaling.UP);
      machines.add(grant.machine());
      PoolNode node = new PoolNode(NodeTemplate.assigned(pool.ref(), pool.spec(), grant.machine(), profile, pool.now),
          grant, pool.now.plus(policy.bootTime()), null, null, null, null);
      pool.assigned(node);
      String cause = pool.uid() + "/" + grant.grantId();
      pool.poolEvent(CwEvent.CWNodeAssigned, "Node " + grant.machine() + " assigned to the NodePool.", cause);
      pool.nodeEvent(grant.machine(), CwEvent.CWConfigStaged, "Node configuration " + profile
          + " staged for the node's boot.", cause);
    }
  }

  /** Extra nodes leave: booting and idle ones at once, active ones drained when the strategy (or a deletion) allows. */
  private static void scaleDown(PoolChanges pool, int desired, ProvisioningPolicy policy) {
    List<PoolNode> staying = pool.staying();
    int excess = staying.size() - desired;
    if (pool.deleting() && !pool.nodes.isEmpty() && pool.startEpisode(Scaling.DELETE)) {
      pool.poolEvent(CwEvent.CWNodePoolRemoveNodes, "Removing all " + pool.nodes.size() + " node(s): the NodePool "
          + "is being deleted.", pool.episodeCause());
    } else if (!pool.deleting() && excess > 0 && pool.startEpisode(Scaling.DOWN)) {
      pool.poolEvent(CwEvent.CWNodePoolRemoveNodes, "Scaling down from " + staying.size() + " to " + desired
          + " node(s) with the " + pool.spec().scaleDownStrategy() + " strategy.", pool.episodeCause());
    }
    if (excess <= 0) {
      return;
    }
    var selection = ScaleDownSelector.select(staying, excess, pool.spec().scaleDownStrategy(), pool.deleting());
    RemovalCause cause = pool.deleting() ? RemovalCause.PoolDeleted : RemovalCause.ScaleDown;
    String why = pool.deleting() ? "the NodePool is being deleted" : "the NodePool scales down to " + desired;
    for (PoolNode node : selection.removeNow()) {
      pool.remove(node, cause, "Removed: " + why + ".");
      pool.poolEvent(CwEvent.CWNodeDeleted, "Node " + node.name() + " deleted: " + why + ".",
          pool.uid() + "/" + node.grant().grantId());
    }
    for (PoolNode node : selection.drain()) {
      Duration grace = node.graceSeconds() == null ? policy.drainGrace() : Duration.ofSeconds(node.graceSeconds());
      Node draining = NodeTemplate.leaving(node.node(), cause, "Draining: " + why + ".", true, pool.now);
      pool.updated(node.leaving(draining, cause, pool.now.plus(grace)), "Draining");
      String eventCause = pool.episodeCause() + "/" + node.grant().grantId();
      pool.nodeEvent(node.name(), CwEvent.CWNodeCordoned, "Node " + node.name() + " cordoned: " + why + ".",
          eventCause);
      pool.nodeEvent(node.name(), CwEvent.CWNodeDraining, "Node " + node.name() + " draining; it is removed when "
          + "its workload is idle or after " + grace.toSeconds() + "s.", eventCause);
      pool.poolEvent(CwEvent.CWDrainNode, "Draining node " + node.name() + ".", eventCause);
    }
  }

  /** A scaling that reached its end says so once. */
  private static void closeEpisode(PoolChanges pool, int desired) {
    if (pool.scaling == null) {
      return;
    }
    boolean settled = pool.nodes.values().stream()
        .allMatch(n -> n.phase() == Node.Phase.Registered && !n.leaving()) && pool.nodes.size() == desired;
    switch (pool.scaling) {
      case UP -> {
        if (settled) {
          pool.poolEvent(CwEvent.CWNodePoolScaledUp, "NodePool scaled up to " + desired + " node(s).",
              pool.episodeCause());
          pool.scaling = null;
        }
      }
      case DOWN -> {
        if (settled) {
          pool.poolEvent(CwEvent.CWNodePoolNodesRemoved, "Nodes removed; the NodePool has " + desired
              + " node(s).", pool.episodeCause());
          pool.poolEvent(CwEvent.CWNodePoolScaledDown, "NodePool scaled down to " + desired + " node(s).",
              pool.episodeCause());
          pool.scaling = null;
        }
      }
      case DELETE -> {
        if (pool.nodes.isEmpty()) {
          pool.poolEvent(CwEvent.CWNodePoolNodesRemoved, "All nodes removed from the NodePool.",
              pool.episodeCause());
          pool.scaling = null;
        }
      }
    }
  }

  /** The pool's counts as the status shows them, sent when they differ from the last ones sent. */
  private static void summarize(PoolChanges pool, int desired) {
    int current = 0;
    int inProgress = 0;
    int removing = 0;
    for (PoolNode node : pool.nodes.values()) {
      switch (node.phase()) {
        case Booting -> inProgress++;
        case Registered, Draining -> current++;
        default -> { }
      }
      if (node.leaving()) {
        removing++;
      }
    }
    NodePoolReconciled next = new NodePoolReconciled(pool.ref(), desired, current, inProgress, removing,
        pool.activeProfile(), NodeConfigurations.pendingView(pool.configs),
        NodeConfigurations.revisionsView(pool.configs, pool.snapshot()), pool.deleting(),
        pool.deleting() && pool.nodes.isEmpty(), pool.disabled(), pool.disabledMessage, pool.now);
    NodePoolReconciled last = pool.lastReconciled;
    if (last == null || !next.equals(new NodePoolReconciled(last.pool(), last.targetNodes(), last.currentNodes(),
        last.inProgress(), last.removing(), last.nodeProfile(), last.pendingNodeConfiguration(),
        last.nodeConfigurationRevisions(), last.deleting(), last.nodesRemoved(), last.disabled(),
        last.disabledMessage(), pool.now))) {
      pool.summary(next);
    }
  }

  private static <T> List<T> concat(List<T> first, List<T> second) {
    if (first.isEmpty()) {
      return second;
    }
    return Stream.concat(first.stream(), second.stream()).toList();
  }
}
