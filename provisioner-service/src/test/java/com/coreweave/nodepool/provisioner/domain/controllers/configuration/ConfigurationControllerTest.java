package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.BROKEN_IMAGE;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Gpu;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.NodeConfigurationUpdateStrategy;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Node configurations of reference 000: staging by strategy, pending, upgrade, rollback, reconfigure reboots. */
class ConfigurationControllerTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final NodeReleasePublished STABLE_NEXT = new NodeReleasePublished(
            Image.STABLE, "2026.12.0", List.of("ncore image 2026.12.0", "Kubernetes v1.32.4"), Fixtures.T0);

    PoolDriver pool = new PoolDriver(policy(BOOT));

    static NodePoolSpec spec(int target, String driver, String strategy) {
        NodePoolSpec s = Fixtures.spec(target);
        return new NodePoolSpec(
                s.computeClass(),
                s.instanceType(),
                target,
                null,
                null,
                s.nodeLabels(),
                s.nodeAnnotations(),
                s.nodeTaints(),
                null,
                new Gpu(driver),
                false,
                s.lifecycle(),
                new NodeConfigurationUpdateStrategy(strategy),
                s.region());
    }

    static NodePoolSpec withImage(NodePoolSpec s, Image image) {
        return new NodePoolSpec(
                s.computeClass(),
                s.instanceType(),
                s.targetNodes(),
                null,
                null,
                s.nodeLabels(),
                s.nodeAnnotations(),
                s.nodeTaints(),
                image,
                null,
                false,
                s.lifecycle(),
                s.nodeConfigurationUpdateStrategy(),
                s.region());
    }

    static NodeConfigurationRequested request(String id, Action action, String profile, String... nodes) {
        return new NodeConfigurationRequested(
                id, Fixtures.ORG, Fixtures.POOL, Fixtures.UID, action, profile, List.of(nodes), Fixtures.T0);
    }

    /** A pool of {@code target} registered nodes. */
    PoolDriver registered(NodePoolSpec spec) {
        pool.spec(accepted(spec, 1));
        pool.grants(capacity(
                1,
                IntStream.rangeClosed(1, spec.targetNodes())
                        .mapToObj(Fixtures::grant)
                        .toArray(Grant[]::new)));
        return pool.tick(BOOT);
    }

    String active() {
        return pool.summary().nodeProfile();
    }

    List<String> nodeProfiles() {
        return pool.state.nodes().values().stream()
                .map(n -> n.node().status().nodeProfile())
                .toList();
    }

    RecordedEvent lastEvent(String reason) {
        return pool.events.stream()
                .filter(e -> e.reason().equals(reason))
                .reduce((a, b) -> b)
                .orElseThrow();
    }

    @Test
    void aNewPoolHasOneRevisionWithAllItsNodesAndNothingPending() {
        registered(spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));

        NodePoolReconciled summary = pool.summary();
        assertThat(summary.pendingNodeConfiguration()).isNull();
        assertThat(summary.nodeConfigurationRevisions()).singleElement().satisfies(r -> {
            assertThat(r.nodeProfile()).isEqualTo(summary.nodeProfile());
            assertThat(r.activeNodes()).isEqualTo(2);
            assertThat(r.disabled()).isFalse();
            assertThat(r.summary()).contains("release train stable: 2026.10.2", "GPU driver 550");
        });
        assertThat(pool.allReasons()).doesNotContain("CWNodeConfigStaged", "CWPendingNodeConfig");
    }

    @Test
    void onSpecUpdateStagesASpecChangeAtOnceAndNewNodesBootIt() {
        registered(spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String before = active();

        pool.spec(accepted(spec(3, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 2));

        assertThat(active()).isNotEqualTo(before);
        assertThat(pool.lastReasons()).contains("CWNodeConfigStaged").doesNotContain("CWNodePoolNodeConfigUpdated");
        assertThat(lastEvent("CWNodeConfigStaged").message()).contains("spec changed", "OnSpecUpdate");
        pool.grants(capacity(2, grant(1), grant(2), grant(3)));
        assertThat(pool.node(3).node().status().nodeProfile()).isEqualTo(active());
        assertThat(pool.node(1).node().status().nodeProfile()).isEqualTo(before);
        pool.tick(BOOT);
        assertThat(pool.summary().nodeConfigurationRevisions())
                .extracting(NodeConfigurationRevision::nodeProfile, NodeConfigurationRevision::activeNodes)
                .containsExactly(tuple(before, 2), tuple(active(), 1));
    }

    @Test
    void onSpecUpdateShowsAnUpstreamReleaseAsPendingUntilTheUserUpgrades() {
        registered(spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String before = active();

        pool.release(STABLE_NEXT);

        assertThat(active()).isEqualTo(before);
        assertThat(pool.lastReasons()).containsExactly("CWPendingNodeConfig");
        var pending = pool.summary().pendingNodeConfiguration();
        assertThat(pending.nodeProfile()).isNotEqualTo(before);
        assertThat(pending.summary()).contains("release train stable: 2026.12.0", "Kubernetes v1.32.4");

        pool.configuration(request("up-1", Action.Upgrade, null));

        assertThat(active()).isEqualTo(pending.nodeProfile());
        assertThat(pool.summary().pendingNodeConfiguration()).isNull();
        assertThat(pool.lastReasons())
                .containsExactly("CWManualUpgradeTrigger", "CWNodePoolNodeConfigUpdated", "CWNodeConfigStaged");
        assertThat(pool.summary().nodeConfigurationRevisions())
                .extracting(NodeConfigurationRevision::nodeProfile)
                .containsExactly(before, pending.nodeProfile());
    }

    @Test
    void alwaysStagesAnUpstreamReleaseAtOnce() {
        registered(spec(1, "550", NodeConfigurationUpdateStrategy.ALWAYS));
        String before = active();

        pool.release(STABLE_NEXT);

        assertThat(active()).isNotEqualTo(before);
        assertThat(pool.summary().pendingNodeConfiguration()).isNull();
        assertThat(pool.lastReasons()).containsExactly("CWNodeConfigStaged");
        assertThat(lastEvent("CWNodeConfigStaged").message()).contains("2026.12.0", "Always");
    }

    @Test
    void manualKeepsEvenASpecChangePendingAndAPinnedImageIgnoresReleases() {
        registered(withImage(
                spec(1, "550", NodeConfigurationUpdateStrategy.MANUAL),
                new Image(null, "ncore-custom-v1", Image.STABLE)));
        String before = active();

        pool.release(STABLE_NEXT);
        assertThat(pool.summary().pendingNodeConfiguration()).isNull();
        assertThat(pool.lastReasons()).isEmpty();

        pool.spec(accepted(
                withImage(
                        spec(1, "550", NodeConfigurationUpdateStrategy.MANUAL),
                        new Image(null, "ncore-custom-v2", Image.STABLE)),
                2));

        assertThat(active()).isEqualTo(before);
        assertThat(pool.summary().pendingNodeConfiguration().summary())
                .contains("image ncore-custom-v2 (pinned; follows no release train)");
        assertThat(pool.lastReasons()).containsExactly("CWPendingNodeConfig");
    }

    @Test
    void anUpgradeWithNothingPendingIsRefusedWithAWarning() {
        registered(spec(1, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String before = active();

        pool.configuration(request("up-1", Action.Upgrade, null));

        assertThat(active()).isEqualTo(before);
        assertThat(pool.lastReasons()).containsExactly("CWNodePoolNoPendingConfiguration");
        assertThat(lastEvent("CWNodePoolNoPendingConfiguration").type()).isEqualTo("Warning");
    }

    @Test
    void aRollbackReturnsToARevisionAndRefusesAnUnknownOrActiveOne() {
        registered(spec(1, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String first = active();
        pool.spec(accepted(spec(1, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 2));
        String second = active();

        pool.configuration(request("rb-1", Action.Rollback, "np-00000000"));
        assertThat(pool.lastReasons()).containsExactly("CWNodePoolNodeConfigRollbackFailed");
        assertThat(lastEvent("CWNodePoolNodeConfigRollbackFailed").message()).contains("np-00000000", first, second);
        pool.configuration(request("rb-2", Action.Rollback, second));
        assertThat(lastEvent("CWNodePoolNodeConfigRollbackFailed").message()).contains("already the active");

        pool.configuration(request("rb-3", Action.Rollback, first));

        assertThat(active()).isEqualTo(first);
        assertThat(pool.lastReasons())
                .containsExactly("CWManualRollbackTrigger", "CWNodePoolNodeConfigUpdated", "CWNodeConfigStaged");
        assertThat(pool.summary().nodeConfigurationRevisions())
                .extracting(NodeConfigurationRevision::nodeProfile)
                .containsExactly(first, second);
    }

    @Test
    void aChangeWaitsForNodesMidDeliveryAndTheOppositeChangeMeanwhileConflicts() {
        registered(spec(1, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String first = active();
        pool.spec(accepted(spec(2, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 2));
        pool.grants(capacity(2, grant(1), grant(2)));
        assertThat(pool.node(2).phase()).isEqualTo(Node.Phase.Booting);

        pool.configuration(request("rb-1", Action.Rollback, first));
        assertThat(pool.lastReasons()).containsExactly("CWManualRollbackTrigger", "CWNodePoolNodeConfigUpdatePending");
        assertThat(active()).isNotEqualTo(first);
        pool.release(STABLE_NEXT);
        pool.configuration(request("up-1", Action.Upgrade, null));
        assertThat(pool.lastReasons()).containsExactly("CWNodePoolNodeConfigUpdateConflict");

        pool.tick(BOOT);

        assertThat(active()).isEqualTo(first);
        assertThat(pool.lastReasons())
                .contains("CWNodeRegistered", "CWNodePoolNodeConfigUpdated", "CWNodeConfigStaged");
    }

    @Test
    void onSpecUpdateHoldsASpecChangeWhileNodesAreInDeliveryAndStagesItOnceTheyHaveBooted() {
        registered(spec(1, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String first = active();
        pool.spec(accepted(spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 2));
        pool.grants(capacity(2, grant(1), grant(2)));
        assertThat(pool.node(2).phase()).isEqualTo(Node.Phase.Booting);

        pool.spec(accepted(spec(2, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 3));

        assertThat(pool.lastReasons())
                .contains("CWNodePoolNodeConfigUpdatePending")
                .doesNotContain("CWNodeConfigStaged");
        assertThat(lastEvent("CWNodePoolNodeConfigUpdatePending").message())
                .contains("waits for 1 node(s) mid-delivery", "spec changed");
        assertThat(active()).as("held while node 2 is delivered").isEqualTo(first);

        pool.tick(BOOT);

        assertThat(active()).isNotEqualTo(first);
        assertThat(pool.lastReasons()).contains("CWNodeRegistered", "CWNodeConfigStaged");
        assertThat(lastEvent("CWNodeConfigStaged").message()).contains("spec changed", "OnSpecUpdate");
    }

    @Test
    void aNodeRebootingInPlaceIsNoDeliveryAndDoesNotHoldAStaging() {
        registered(spec(2, "550", NodeConfigurationUpdateStrategy.ALWAYS));
        String first = active();
        pool.raise(1, "GPUTimeoutError");
        assertThat(pool.node(1).phase()).as("rebooting in place").isEqualTo(Node.Phase.Booting);

        pool.spec(accepted(spec(2, "560", NodeConfigurationUpdateStrategy.ALWAYS), 2));

        assertThat(active()).isNotEqualTo(first);
        assertThat(pool.lastReasons())
                .contains("CWNodeConfigStaged")
                .doesNotContain("CWNodePoolNodeConfigUpdatePending");
    }

    @Test
    void aSpecChangeWhileAUsersRollbackWaitsIsSimultaneousConflictsAndStaysPending() {
        registered(spec(1, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String first = active();
        pool.spec(accepted(spec(1, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 2));
        pool.spec(accepted(spec(2, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 3));
        pool.grants(capacity(3, grant(1), grant(2)));
        pool.configuration(request("rb-2", Action.Rollback, first));
        assertThat(pool.lastReasons()).containsExactly("CWManualRollbackTrigger", "CWNodePoolNodeConfigUpdatePending");

        pool.spec(accepted(spec(2, "570", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 4));

        assertThat(pool.lastReasons()).contains("CWNodePoolNodeConfigUpdateConflict", "CWPendingNodeConfig");
        assertThat(lastEvent("CWNodePoolNodeConfigUpdateConflict").message())
                .contains("Rollback to " + first, "pending instead");
        String specs = pool.summary().pendingNodeConfiguration().nodeProfile();

        pool.tick(BOOT);

        assertThat(active()).as("the user's rollback first").isEqualTo(first);
        assertThat(pool.summary().pendingNodeConfiguration().nodeProfile())
                .as("the spec's configuration waits for an upgrade")
                .isEqualTo(specs);
    }

    @Test
    void aReconfigureRebootsIdleOutdatedNodesAtOnceAndBusyOnesWhenTheyAreIdle() {
        registered(spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        pool.report(activity(2, true, null));
        pool.spec(accepted(spec(2, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 2));
        String next = active();

        pool.configuration(request("rc-1", Action.Reconfigure, null));

        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Booting);
        assertThat(pool.node(1).node().status().nodeProfile()).isEqualTo(next);
        assertThat(pool.node(2).phase()).isEqualTo(Node.Phase.Registered);
        assertThat(pool.summary())
                .extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress)
                .containsExactly(1, 1);
        assertThat(pool.last.events())
                .extracting(RecordedEvent::reason, e -> e.involvedObject().name())
                .containsExactly(tuple("CWConfigStaged", machine(1)));

        pool.tick(BOOT);
        assertThat(pool.lastReasons()).containsExactly("CWReconfigureRebooted");
        assertThat(pool.node(1).phase()).isEqualTo(Node.Phase.Registered);

        pool.report(activity(2, false, null)).tick(BOOT);

        assertThat(nodeProfiles()).containsOnly(next);
        assertThat(pool.allReasons())
                .filteredOn("CWReconfigureRebooted"::equals)
                .hasSize(2);
        assertThat(pool.summary().nodeConfigurationRevisions())
                .extracting(NodeConfigurationRevision::activeNodes)
                .containsExactly(0, 2);
    }

    @Test
    void aRepeatedRequestChangesNothing() {
        registered(spec(1, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        pool.release(STABLE_NEXT);
        pool.configuration(request("up-1", Action.Upgrade, null));
        PoolState after = pool.state;

        pool.configuration(request("up-1", Action.Upgrade, null));

        assertThat(pool.last.events()).isEmpty();
        assertThat(pool.last.facts()).isEmpty();
        assertThat(pool.state).isEqualTo(after);
    }

    @Test
    void aConfigurationThatKeepsFailingIsDisabledAndARollbackRecoversThePool() {
        registered(spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        String good = active();
        pool.spec(accepted(
                withImage(
                        spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE),
                        new Image(null, BROKEN_IMAGE, Image.STABLE)),
                2));
        String broken = active();
        pool.configuration(request("rc-1", Action.Reconfigure, null));
        pool.tick(BOOT).tick(BOOT).tick(BOOT);
        assertThat(pool.state.disabled()).isTrue();
        assertThat(pool.summary().nodeConfigurationRevisions())
                .extracting(NodeConfigurationRevision::nodeProfile, NodeConfigurationRevision::disabled)
                .containsExactly(tuple(good, false), tuple(broken, true));

        pool.configuration(request("rb-1", Action.Rollback, good));

        assertThat(active()).isEqualTo(good);
        assertThat(pool.state.disabled()).isFalse();
        pool.configuration(request("rb-2", Action.Rollback, broken));
        assertThat(lastEvent("CWNodePoolNodeConfigRollbackFailed").message()).contains("disabled");
    }

    @Test
    void aPoolReconciledBeforeConfigurationsWereKeptKeepsWhatItsNodesRunAndIsOfferedANewRelease() {
        registered(spec(2, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        PoolState s = pool.state;
        NodePoolReconciled old = s.lastReconciled();
        pool.state = new PoolState(
                s.accepted(),
                s.capacity(),
                s.nodes(),
                s.releasedGrants(),
                s.bootFailureStreak(),
                s.disabledMessage(),
                s.scaling(),
                s.episode(),
                new NodePoolReconciled(
                        old.pool(),
                        old.targetNodes(),
                        old.currentNodes(),
                        old.inProgress(),
                        old.removing(),
                        "np-0ld0ld0",
                        null,
                        null,
                        old.deleting(),
                        old.nodesRemoved(),
                        old.disabled(),
                        old.disabledMessage(),
                        old.at()),
                null,
                null,
                null,
                List.of(),
                null,
                null,
                null);

        pool.release(STABLE_NEXT);

        assertThat(active()).isEqualTo("np-0ld0ld0");
        assertThat(pool.summary().pendingNodeConfiguration().summary()).contains("release train stable: 2026.12.0");
        assertThat(pool.summary().nodeConfigurationRevisions())
                .extracting(NodeConfigurationRevision::nodeProfile)
                .containsExactly("np-0ld0ld0");
        assertThat(pool.lastReasons()).containsExactly("CWPendingNodeConfig");
    }

    @Test
    void aReconfigureRebootsOneNodeAtATimeSoThePoolKeepsServing() {
        registered(spec(3, "550", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE));
        pool.spec(accepted(spec(3, "560", NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE), 2));

        pool.configuration(request("rc-1", Action.Reconfigure, null));
        for (int reboot = 1; reboot <= 3; reboot++) {
            assertThat(pool.summary())
                    .as("reboot %d", reboot)
                    .extracting(NodePoolReconciled::currentNodes, NodePoolReconciled::inProgress)
                    .containsExactly(2, 1);
            pool.tick(BOOT);
        }

        assertThat(nodeProfiles()).containsOnly(active());
        assertThat(pool.summary().currentNodes()).isEqualTo(3);
        assertThat(pool.allReasons())
                .filteredOn("CWReconfigureRebooted"::equals)
                .hasSize(3);
    }
}
