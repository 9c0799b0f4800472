package com.coreweave.nodepool.provisioner.domain;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.BROKEN_IMAGE;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRegistered;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRegistrationFailed;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.NodeFact.NodeUpdated;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class PoolReconcilerTest {

  static final Duration BOOT = Duration.ofSeconds(10);

  PoolDriver pool = new PoolDriver(policy(BOOT));

  /** A pool of {@code target} nodes, all granted, booted and registered. */
  PoolDriver registeredPool(String strategy, int target) {
    pool.spec(accepted(Fixtures.withStrategy(spec(target), strategy), 1));
    pool.grants(capacity(1, IntStream.rangeClosed(1, target).mapToObj(Fixtures::grant).toArray(Grant[]::new)));
    return pool.tick(BOOT);
  }

  static Condition condition(Node node, String type) {
    return node.status().conditions().stream().filter(c -> c.type().equals(type)).findFirst().orElseThrow();
  }

  @Test
  void grantsForAnOlderLargerDemandDoNotBecomeNodesBeyondWhatQuotaAdmitted() {
    // Quota admitted 1 (the target of 5 is over quota), but grants made for an earlier demand of 3 arrive late.
    var late = new com.coreweave.nodepool.schema.events.CapacityChecked(Fixtures.ref(1),
        com.coreweave.nodepool.schema.resource.Conditions.Capacity.SUFFICIENT, 1, List.of(grant(1), grant(2),
        grant(3)), 0, null, null, "", Fixtures.T0);
    pool.spec(accepted(spec(5), 1)).grants(late);

    assertThat(pool.lastFacts(NodeAssigned.class)).extracting(NodeAssigned::grant).containsExactly(grant(1));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(NodeRemoved::grant, NodeRemoved::cause)
        .containsExactlyInAnyOrder(tuple(grant(2), "Declined"), tuple(grant(3), "Declined"));
  }

  @Test
  void grantsBecomeBootingNodesWithThePoolsLabelsTaintsAndProfile() {
    pool.spec(accepted(spec(2), 1)).grants(capacity(1, grant(1), grant(2)));

    List<NodeAssigned> assigned = pool.lastFacts(NodeAssigned.class);
    assertThat(assigned).hasSize(2);
    Node node = assigned.get(0).node();
    assertThat(assigned.get(0).grant()).isEqualTo(grant(1));
    assertThat(node.name()).isEqualTo(machine(1));
    assertThat(node.phase()).isEqualTo(Node.Phase.Booting);
    assertThat(node.metadata().labels()).containsEntry("team", "research")
        .containsEntry(Node.LABEL_INSTANCE_TYPE, Fixtures.TYPE)
        .containsEntry(Node.LABEL_ZONE, "US-EAST-04A")
        .containsEntry(Node.LABEL_REGION, "US-EAST-04")
        .containsEntry(Node.LABEL_HOSTNAME, machine(1))
        .containsEntry(Node.LABEL_NODE_POOL, Fixtures.POOL)
        .containsEntry(Node.LABEL_COMPUTE_CLASS, "default");
    assertThat(node.metadata().annotations()).containsEntry("owner", "ml-platform");
    assertThat(node.spec().taints()).containsExactly(new Taint("nvidia.com/gpu", "present", "NoSchedule"));
    assertThat(node.spec().unschedulable()).isFalse();
    assertThat(node.status().nodeProfile()).isEqualTo(NodeProfiles.of(spec(2), NodeReleases.INITIAL)).matches("np-[0-9a-f]{8}");
    assertThat(node.status().bootAttempt()).isEqualTo(1);
    assertThat(condition(node, Node.CONDITION_ACTIVE).status()).isEqualTo(Condition.FALSE);
    assertThat(condition(node, Node.CONDITION_REGISTERED).reason()).isEqualTo(NodeTemplate.BOOTING);
    assertThat(condition(node, Node.CONDITION_REMOVAL).status()).isEqualTo(Condition.FALSE);
    assertThat(pool.lastReasons()).containsExactly("CWNodeAssigned", "CWConfigStaged", "CWNodeAssigned",
        "CWConfigStaged");
    assertThat(pool.summary()).extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress,
        NodePoolReconciled::nodeProfile).containsExactly(0, 2, node.status().nodeProfile());
  }

  @Test
  void bootingNodesRegisterWhenTheirBootTimeIsUpAndTheScaleUpIsAnnounced() {
    pool.spec(accepted(spec(2), 1)).grants(capacity(1, grant(1), grant(2)));

    pool.tick(BOOT.minusMillis(1));
    assertThat(pool.last.facts()).isEmpty();
    assertThat(pool.state.wakeAt()).isEqualTo(Fixtures.T0.plus(BOOT));

    pool.tick(Duration.ofMillis(1));
    assertThat(pool.lastFacts(NodeRegistered.class)).extracting(f -> f.node().name())
        .containsExactly(machine(1), machine(2));
    Node registered = pool.node(1).node();
    assertThat(registered.phase()).isEqualTo(Node.Phase.Registered);
    assertThat(registered.status().registeredAt()).isEqualTo(pool.now);
    assertThat(condition(registered, Node.CONDITION_REGISTERED).status()).isEqualTo(Condition.TRUE);
    assertThat(pool.lastReasons()).containsExactly("CWNodeRegistered", "CWNodeRegistered", "CWNodePoolScaledUp");
    assertThat(pool.summary()).extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress)
        .containsExactly(2, 0);
    assertThat(pool.state.wakeAt()).isNull();
  }

  @Test
  void withNoBootTimeANodeRegistersAtTheNextReconcileNotTheOneThatAssignedIt() {
    pool = new PoolDriver(policy(Duration.ZERO));
    pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1)));
    assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Booting);

    pool.tick(Duration.ZERO);
    assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);
  }

  @Test
  void grantsBeyondTheTargetAreReleasedAtOnce() {
    pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1), grant(2)));

    assertThat(pool.lastFacts(NodeAssigned.class)).extracting(NodeFact.AboutNode::grant).containsExactly(grant(1));
    assertThat(pool.lastFacts(NodeRemoved.class)).singleElement().satisfies(removed -> {
      assertThat(removed.grant()).isEqualTo(grant(2));
      assertThat(removed.cause()).isEqualTo("Declined");
    });
    assertThat(pool.state.releasedGrants()).containsExactly(grant(2).grantId());
  }

  @Test
  void aReleasedGrantIsNeverTurnedIntoANodeAgainEvenWhileAStaleCapacityStillListsIt() {
    registeredPool(Lifecycle.IDLE_ONLY, 2);
    pool.spec(accepted(spec(1), 2));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(NodeRemoved::grant).containsExactly(grant(2));

    // The ledger has not seen the release yet; then the target rises again.
    pool.grants(capacity(2, grant(1), grant(2)));
    pool.spec(accepted(spec(2), 3));
    pool.grants(capacity(3, grant(1), grant(2)));
    assertThat(pool.allFacts(NodeAssigned.class)).extracting(NodeAssigned::grant)
        .containsExactly(grant(1), grant(2));

    // The ledger freed grant 102 and grants the machine again under a new id: that one becomes a node.
    Grant regranted = new Grant(machine(2), 500);
    pool.grants(capacity(3, grant(1), regranted));
    assertThat(pool.lastFacts(NodeAssigned.class)).extracting(NodeAssigned::grant).containsExactly(regranted);
  }

  @Test
  void releasedGrantIdsAreForgottenOnceTheLedgerNoLongerListsThem() {
    pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1), grant(2)));
    assertThat(pool.state.releasedGrants()).containsExactly(grant(2).grantId());

    pool.grants(capacity(1, grant(1)));
    assertThat(pool.state.releasedGrants()).isEmpty();
  }

  @Test
  void aFailedBootIsTriedAgainWithTheNextAttempt() {
    pool = new PoolDriver(new ProvisioningPolicy(BOOT, 1.0, 0, Set.of(), 5, Duration.ofSeconds(30), 1,
        ProvisioningPolicy.SCALE_UP_AFTER, ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME));
    pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1))).tick(BOOT);

    NodeRegistrationFailed failed = pool.lastFacts(NodeRegistrationFailed.class).get(0);
    assertThat(failed.node().phase()).isEqualTo(Node.Phase.Failed);
    assertThat(failed.node().status().bootAttempt()).isEqualTo(1);
    assertThat(failed.message()).contains(machine(1)).contains("attempt 1");
    NodeUpdated retry = pool.lastFacts(NodeUpdated.class).get(0);
    assertThat(retry.change()).isEqualTo("BootRetried");
    assertThat(retry.node().phase()).isEqualTo(Node.Phase.Booting);
    assertThat(retry.node().status().bootAttempt()).isEqualTo(2);
    assertThat(pool.last.events()).extracting(RecordedEvent::reason, RecordedEvent::type)
        .containsExactly(tuple("CWNodeRegistrationFailed", "Warning"));
    assertThat(pool.state.bootFailureStreak()).isEqualTo(1);
    assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(BOOT));
  }

  @Test
  void aPoolWhoseNodesKeepFailingToBootIsDisabledTheirGrantsReleasedAndNothingBootsAgain() {
    pool.spec(accepted(Fixtures.withImage(spec(2), BROKEN_IMAGE), 1)).grants(capacity(1, grant(1), grant(2)));
    pool.tick(BOOT);
    assertThat(pool.state.disabled()).isFalse();
    pool.tick(BOOT);

    assertThat(pool.state.disabled()).isTrue();
    assertThat(pool.lastReasons()).contains("CWNodePoolDisabled");
    assertThat(pool.events).filteredOn(e -> e.reason().equals("CWNodePoolDisabled")).singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo("Warning"));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(NodeRemoved::grant, NodeRemoved::cause)
        .containsExactlyInAnyOrder(tuple(grant(1), "BootFailed"),
            tuple(grant(2), "BootFailed"));
    assertThat(pool.state.nodes()).isEmpty();
    assertThat(pool.summary().disabled()).isTrue();
    assertThat(pool.summary().disabledMessage()).contains("3 boot failures in a row");

    // The ledger grants the machines again: the disabled pool holds them without booting.
    pool.grants(capacity(1, new Grant(machine(1), 201), new Grant(machine(2), 202)));
    pool.tick(BOOT.multipliedBy(3));
    assertThat(pool.state.nodes()).isEmpty();
    assertThat(pool.allFacts(NodeAssigned.class)).hasSize(2);
  }

  @Test
  void onlyFailuresInARowDisableAPoolAnySuccessStartsTheCountAgain() {
    // A seed under which, in name order, node 1 fails, node 2 registers, node 3 fails, and both retries register.
    long seed = LongStream.range(0, 100_000).filter(s -> fails(1, 1, s) && !fails(2, 1, s)
        && fails(3, 1, s) && !fails(1, 2, s) && !fails(3, 2, s)).findFirst().orElseThrow();
    pool = new PoolDriver(new ProvisioningPolicy(BOOT, 0.5, seed, Set.of(), 2, Duration.ofSeconds(30), 1,
        ProvisioningPolicy.SCALE_UP_AFTER, ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME));
    pool.spec(accepted(spec(3), 1)).grants(capacity(1, grant(1), grant(2), grant(3)));

    pool.tick(BOOT);
    assertThat(pool.lastFacts(NodeRegistrationFailed.class)).hasSize(2);
    assertThat(pool.state.disabled()).isFalse();
    pool.tick(BOOT);
    assertThat(pool.nodes(Node.Phase.Registered)).hasSize(3);
    assertThat(pool.state.bootFailureStreak()).isZero();
  }

  static boolean fails(int machine, int attempt, long seed) {
    return SimulatedBoot.draw(machine(machine), attempt, seed) < 0.5;
  }

  @Test
  void aSpecChangeClearsTheDisabledFlagAndHeldGrantsBoot() {
    pool.spec(accepted(Fixtures.withImage(spec(1), BROKEN_IMAGE), 1)).grants(capacity(1, grant(1)));
    pool.tick(BOOT).tick(BOOT).tick(BOOT);
    assertThat(pool.state.disabled()).isTrue();
    pool.grants(capacity(1, new Grant(machine(1), 201)));

    pool.spec(accepted(Fixtures.withImage(spec(1), "good-image"), 2));
    assertThat(pool.state.disabled()).isFalse();
    assertThat(pool.lastFacts(NodeAssigned.class)).extracting(f -> f.grant().grantId()).containsExactly(201L);
    pool.tick(BOOT);
    assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);
    assertThat(pool.summary().disabled()).isFalse();
  }

  @Test
  void anInvalidPoolHoldsItsGrantsWithoutBootingThem() {
    pool.spec(Fixtures.invalid(spec(1), 1)).grants(capacity(1, grant(1)));
    assertThat(pool.state.nodes()).isEmpty();
    assertThat(pool.state.releasedGrants()).isEmpty();
  }

  @Test
  void idleOnlyRemovesIdleNodesAndKeepsThePoolOverTargetUntilMoreGoIdle() {
    registeredPool(Lifecycle.IDLE_ONLY, 3);
    pool.report(activity(1, true, null)).report(activity(2, true, null));

    pool.spec(accepted(spec(1), 2));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(f -> f.node().name(), NodeRemoved::cause)
        .containsExactly(tuple(machine(3), "ScaleDown"));
    assertThat(pool.lastReasons()).containsExactly("CWNodePoolRemoveNodes", "CWNodeDeleted");
    assertThat(pool.state.nodes()).containsOnlyKeys(machine(1), machine(2));
    assertThat(pool.state.nodes().values()).noneMatch(PoolNode::leaving);
    assertThat(pool.summary().currentNodes()).isEqualTo(2);

    pool.tick(Duration.ofMinutes(10));
    assertThat(pool.state.nodes()).hasSize(2);

    pool.report(activity(2, false, null));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(f -> f.node().name()).containsExactly(machine(2));
    assertThat(pool.lastReasons()).containsExactly("CWNodeDeleted", "CWNodePoolNodesRemoved",
        "CWNodePoolScaledDown");
    assertThat(pool.summary().currentNodes()).isEqualTo(1);
    assertThat(pool.allReasons()).filteredOn("CWNodePoolRemoveNodes"::equals).hasSize(1);
  }

  @Test
  void preferIdleRemovesIdleNodesFirstThenDrainsActiveOnesNewestFirst() {
    registeredPool(Lifecycle.PREFER_IDLE, 3);
    pool.report(activity(1, true, null)).report(activity(2, true, null));

    pool.spec(accepted(Fixtures.withStrategy(spec(1), Lifecycle.PREFER_IDLE), 2));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(f -> f.node().name()).containsExactly(machine(3));
    NodeUpdated draining = pool.lastFacts(NodeUpdated.class).get(0);
    assertThat(draining.change()).isEqualTo("Draining");
    assertThat(draining.node().name()).isEqualTo(machine(2));
    assertThat(draining.node().phase()).isEqualTo(Node.Phase.Draining);
    assertThat(draining.node().spec().unschedulable()).isTrue();
    assertThat(condition(draining.node(), Node.CONDITION_REMOVAL))
        .extracting(Condition::status, Condition::reason).containsExactly(Condition.TRUE, "ScaleDown");
    assertThat(pool.lastReasons()).containsExactly("CWNodePoolRemoveNodes", "CWNodeDeleted", "CWNodeCordoned",
        "CWNodeDraining", "CWDrainNode");
    assertThat(pool.summary()).extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::removing)
        .containsExactly(2, 1);
    assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(Duration.ofSeconds(30)));

    pool.report(activity(2, false, null));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(f -> f.node().name(), NodeRemoved::cause)
        .containsExactly(tuple(machine(2), "ScaleDown"));
    assertThat(pool.lastReasons()).containsExactly("CWNodeDeleted", "CWNodePoolNodesRemoved",
        "CWNodePoolScaledDown");
    assertThat(pool.state.nodes()).containsOnlyKeys(machine(1));
  }

  @Test
  void aDrainedNodeLeavesWhenTheGracePeriodItsWorkloadReportedEnds() {
    registeredPool(Lifecycle.PREFER_IDLE, 1);
    pool.report(activity(1, true, 5));
    pool.spec(accepted(Fixtures.withStrategy(spec(0), Lifecycle.PREFER_IDLE), 2));
    assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Draining);

    pool.tick(Duration.ofSeconds(4));
    assertThat(pool.state.nodes()).hasSize(1);
    pool.tick(Duration.ofSeconds(1));
    assertThat(pool.state.nodes()).isEmpty();
    assertThat(pool.lastFacts(NodeRemoved.class)).singleElement()
        .satisfies(r -> assertThat(r.node().phase()).isEqualTo(Node.Phase.Removed));
  }

  @Test
  void deletionRemovesEveryNodeDrainingActiveOnesWhateverTheStrategyThenReportsNodesRemoved() {
    registeredPool(Lifecycle.IDLE_ONLY, 2);
    pool.report(activity(1, true, null));

    pool.spec(accepted(Fixtures.UID, spec(2), 1, true));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(f -> f.node().name(), NodeRemoved::cause)
        .containsExactly(tuple(machine(2), "PoolDeleted"));
    assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Draining);
    assertThat(pool.summary()).extracting(NodePoolReconciled::deleting, NodePoolReconciled::nodesRemoved,
        NodePoolReconciled::targetNodes).containsExactly(true, false, 0);

    pool.tick(Duration.ofSeconds(30));
    assertThat(pool.state.nodes()).isEmpty();
    assertThat(pool.summary().nodesRemoved()).isTrue();
    assertThat(pool.allReasons()).containsSubsequence("CWNodePoolRemoveNodes", "CWNodeDeleted", "CWDrainNode",
        "CWNodeDeleted", "CWNodePoolNodesRemoved");

    // Grants the ledger still lists for the deleting pool are released, never booted.
    pool.grants(capacity(1, grant(1), grant(2), grant(3)));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(NodeRemoved::grant).containsExactly(grant(3));
    assertThat(pool.state.nodes()).isEmpty();

    pool.spec(null);
    assertThat(pool.state).isNull();
  }

  @Test
  void rapidTargetChangesEndAtTheLastTargetWithNoExtraOrMissingNode() {
    Ledger ledger = new Ledger(6);
    pool.spec(accepted(spec(3), 1));
    int[] targets = {1, 5, 2, 4};
    long generation = 1;
    for (int target : targets) {
      generation++;
      pool.spec(accepted(spec(target), generation));
      // The ledger sees each target and the releases so far, a step behind.
      pool.grants(ledger.grant(pool.facts, target, generation));
    }
    for (int round = 0; round < 5; round++) {
      pool.tick(BOOT);
      pool.grants(ledger.grant(pool.facts, 4, generation));
    }

    assertThat(pool.state.nodes()).hasSize(4);
    assertThat(pool.nodes(Node.Phase.Registered)).hasSize(4);
    assertThat(pool.summary()).extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress,
        NodePoolReconciled::removing).containsExactly(4, 0, 0);
    // Every grant became at most one node, and the nodes that stayed hold grants the ledger still lists.
    List<Long> assignedGrants = pool.allFacts(NodeAssigned.class).stream().map(f -> f.grant().grantId()).toList();
    assertThat(assignedGrants).doesNotHaveDuplicates();
    assertThat(pool.state.nodes().values()).extracting(n -> n.grant())
        .allMatch(g -> ledger.held().contains(g));
  }

  @Test
  void spotPreemptionCordonsLabelsDrainsAndRemovesTheNodeAndItsGrant() {
    registeredPool(Lifecycle.IDLE_ONLY, 1);
    PoolRef ref = Fixtures.ref(1);
    Instant evictedAt = Instant.parse("2026-11-22T10:02:00Z");

    pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.PreemptionPending("r-1", ref, machine(1),
        pool.now, pool.now.plusSeconds(120), pool.now.plusSeconds(420))));
    Node pending = pool.node(1).node();
    assertThat(pending.spec().unschedulable()).isTrue();
    assertThat(pending.metadata().labels()).containsEntry(Node.LABEL_PENDING_PREEMPTION, "true");
    assertThat(condition(pending, Node.CONDITION_REMOVAL).reason()).isEqualTo("Preempted");
    assertThat(pool.lastReasons()).containsExactly("CWNodeCordoned");

    pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.PreemptionInProgress("r-1", ref, machine(1),
        evictedAt, 30, pool.now.plusSeconds(420))));
    Node evicted = pool.node(1).node();
    assertThat(evicted.phase()).isEqualTo(Node.Phase.Draining);
    assertThat(evicted.metadata().labels()).containsEntry(Node.LABEL_EVICTED_AT,
        Long.toString(evictedAt.getEpochSecond()));
    assertThat(pool.lastReasons()).containsExactly("CWNodeDraining");
    pool.tick(Duration.ofMinutes(5));
    assertThat(pool.state.nodes()).as("the preemption timeline, not a timer here, removes the node").hasSize(1);

    pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.NodePreempted("r-1", ref, machine(1),
        Fixtures.T0, pool.now, "Drained")));
    assertThat(pool.lastFacts(NodeRemoved.class)).extracting(NodeRemoved::grant, NodeRemoved::cause)
        .containsExactly(tuple(grant(1), "Preempted"));
    assertThat(pool.lastReasons()).containsExactly("CWNodeDeleted");
    assertThat(pool.summary()).extracting(NodePoolReconciled::targetNodes, NodePoolReconciled::currentNodes)
        .containsExactly(1, 0);

    // A repeated step changes nothing.
    pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.NodePreempted("r-1", ref, machine(1),
        Fixtures.T0, pool.now, "Drained")));
    assertThat(pool.last.facts()).isEmpty();
  }

  @Test
  void labelAnnotationAndTaintChangesAreAppliedToExistingNodes() {
    registeredPool(Lifecycle.IDLE_ONLY, 2);
    Map<String, String> labels = new TreeMap<>(Map.of("team", "inference", Node.LABEL_ZONE, "elsewhere"));
    pool.spec(accepted(Fixtures.withLabels(spec(2), labels, List.of()), 2));

    List<NodeUpdated> updates = pool.lastFacts(NodeUpdated.class);
    assertThat(updates).hasSize(2).allMatch(u -> u.change().equals("Metadata"));
    Node updated = pool.node(1).node();
    assertThat(updated.metadata().labels()).containsEntry("team", "inference")
        .containsEntry(Node.LABEL_ZONE, "US-EAST-04A");
    assertThat(updated.spec().taints()).isNull();
    assertThat(pool.lastReasons()).containsExactly("CWNodePoolMetadata");

    pool.tick(Duration.ofSeconds(1));
    assertThat(pool.last.facts()).isEmpty();
  }

  @Test
  void activityChangesCWActiveOnceAndARepeatedReportChangesNothing() {
    registeredPool(Lifecycle.IDLE_ONLY, 1);
    pool.report(activity(1, true, 90));
    assertThat(pool.lastFacts(NodeUpdated.class)).singleElement().satisfies(u -> {
      assertThat(u.change()).isEqualTo(NodeTemplate.ACTIVE);
      assertThat(condition(u.node(), Node.CONDITION_ACTIVE).status()).isEqualTo(Condition.TRUE);
    });
    assertThat(pool.node(1).graceSeconds()).isEqualTo(90);

    pool.report(activity(1, true, 90));
    assertThat(pool.last.facts()).isEmpty();

    pool.report(new NodeActivityReported(Fixtures.ORG, Fixtures.POOL,
        "no-such-node", true, null, Fixtures.T0));
    assertThat(pool.last.facts()).isEmpty();
  }

  @Test
  void theSameInputTwiceOrAnExtraReconcileChangesNothing() {
    pool.spec(accepted(spec(2), 1)).grants(capacity(1, grant(1), grant(2)));
    PoolState before = pool.state;

    pool.grants(capacity(1, grant(1), grant(2)));
    assertThat(pool.last.facts()).isEmpty();
    assertThat(pool.last.events()).isEmpty();
    pool.tick(Duration.ZERO);
    assertThat(pool.last.facts()).isEmpty();
    assertThat(pool.state).isEqualTo(before);
  }

  @Test
  void factsOfAnotherIncarnationAndSpecsOfAnOlderGenerationAreIgnored() {
    registeredPool(Lifecycle.IDLE_ONLY, 2);
    pool.spec(accepted(spec(3), 3));

    pool.spec(accepted(spec(1), 2));
    assertThat(pool.state.accepted().generation()).isEqualTo(3);
    assertThat(pool.last.facts()).isEmpty();

    PoolRef other = new PoolRef(Fixtures.ORG, Fixtures.POOL, "uid-old", 9, Fixtures.ZONE, Fixtures.TYPE, "default");
    pool.grants(capacity(other, grant(7)));
    assertThat(pool.state.nodes()).hasSize(2);
    pool.apply(new PoolInput.PreemptionProgressed(new PreemptionFact.NodePreempted("r-9", other, machine(1),
        Fixtures.T0, pool.now, "Deadline")));
    assertThat(pool.state.nodes()).hasSize(2);
  }

  @Test
  void aPoolCreatedAgainUnderTheSameNameReleasesTheNodesOfTheOldOne() {
    registeredPool(Lifecycle.IDLE_ONLY, 1);

    pool.spec(accepted("uid-2", spec(1), 1, false));
    assertThat(pool.lastFacts(NodeRemoved.class)).singleElement().satisfies(r -> {
      assertThat(r.pool().uid()).isEqualTo(Fixtures.UID);
      assertThat(r.grant()).isEqualTo(grant(1));
    });
    assertThat(pool.state.nodes()).isEmpty();
    assertThat(pool.summary().pool().uid()).isEqualTo("uid-2");
  }

  @Test
  void whenTheTargetRisesAgainADrainingNodeIsKeptRatherThanANewOneBooted() {
    registeredPool(Lifecycle.PREFER_IDLE, 2);
    pool.report(activity(1, true, null)).report(activity(2, true, null));
    pool.spec(accepted(Fixtures.withStrategy(spec(1), Lifecycle.PREFER_IDLE), 2));
    assertThat(pool.node(2).leaving()).isTrue();

    pool.spec(accepted(Fixtures.withStrategy(spec(2), Lifecycle.PREFER_IDLE), 3));
    assertThat(pool.lastFacts(NodeUpdated.class)).extracting(NodeUpdated::change).containsExactly("Uncordoned");
    Node kept = pool.node(2).node();
    assertThat(kept.phase()).isEqualTo(Node.Phase.Registered);
    assertThat(kept.spec().unschedulable()).isFalse();
    assertThat(pool.lastReasons()).containsExactly("CWNodeUncordoned", "CWNodePoolScaledUp");
    assertThat(pool.state.wakeAt()).isNull();
  }

  @Test
  void everyEventIdNamesItsCauseSoAReplayRepeatsTheSameIds() {
    registeredPool(Lifecycle.IDLE_ONLY, 2);
    pool.spec(accepted(spec(0), 2));
    List<String> ids = new ArrayList<>(pool.events.stream().map(RecordedEvent::id).toList());
    assertThat(ids).doesNotHaveDuplicates()
        .allMatch(id -> id.startsWith(PoolReconciler.COMPONENT + "/" + Fixtures.UID + "/"));

    PoolDriver replay = new PoolDriver(policy(BOOT));
    replay.spec(accepted(Fixtures.withStrategy(spec(2), Lifecycle.IDLE_ONLY), 1));
    replay.grants(capacity(1, grant(1), grant(2))).tick(BOOT).spec(accepted(spec(0), 2));
    assertThat(replay.events).extracting(RecordedEvent::id).containsExactlyElementsOf(ids);
  }
}
