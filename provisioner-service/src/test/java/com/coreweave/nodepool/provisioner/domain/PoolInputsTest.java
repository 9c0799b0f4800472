package com.coreweave.nodepool.provisioner.domain;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.controllers.health.AlertCatalogue;
import com.coreweave.nodepool.provisioner.domain.controllers.health.HealthController;
import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.Outcome;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How each kind of input is folded into a pool's state before the pool is reconciled. */
class PoolInputsTest {

    static final Instant NOW = Fixtures.T0.plusSeconds(60);
    static final HealthController HEALTH = new HealthController(RepairPolicy.DEFAULTS, AlertCatalogue.standard());

    static Outcome apply(PoolState state, PoolInput input) {
        return PoolInputs.apply(state, input, NOW, NodeReleases.INITIAL, HEALTH);
    }

    static PoolState registered() {
        return new PoolDriver(policy(Duration.ofSeconds(10))).registered(Lifecycle.IDLE_ONLY, 2).state;
    }

    @Test
    void shouldKeepGrantsThatArriveBeforeThePoolsSpec() {
        PoolState granted =
                apply(null, new PoolInput.GrantsChecked(capacity(1, grant(1)))).state();

        PoolState specified =
                apply(granted, new PoolInput.SpecAccepted(accepted(spec(1), 1))).state();

        assertThat(granted.accepted()).isNull();
        assertThat(specified.accepted().generation()).isEqualTo(1);
        assertThat(specified.capacity().grants()).containsExactly(grant(1));
    }

    @Test
    void shouldIgnoreInputsAboutNodesUntilThePoolsSpecArrived() {
        PoolState granted =
                apply(null, new PoolInput.GrantsChecked(capacity(1, grant(1)))).state();

        Outcome alert = apply(
                granted, new PoolInput.AlertReported(Fixtures.alert(NodeAlert.RAISED, 1, "GPUFallenOffBus", NOW, 1)));
        Outcome report = apply(null, new PoolInput.ActivityReported(activity(1, true, null)));

        assertThat(alert).isEqualTo(Outcome.unchanged(granted));
        assertThat(report).isEqualTo(Outcome.unchanged(null));
    }

    @Test
    void shouldForgetThePoolOnItsSpecsTombstone() {
        Outcome gone = apply(registered(), new PoolInput.SpecAccepted(null));

        assertThat(gone.state()).isNull();
        assertThat(gone.facts()).isEmpty();
    }

    @Test
    void shouldClearTheCapacityDecisionOnTheLedgersTombstoneAndKeepTheNodes() {
        PoolState state = registered();

        PoolState forgotten = apply(state, new PoolInput.GrantsChecked(null)).state();

        assertThat(forgotten.capacity()).isNull();
        assertThat(forgotten.nodes()).isEqualTo(state.nodes());
    }

    @Test
    void shouldIgnoreACapacityDecisionOfAnOlderGenerationButRecordItsEvents() {
        PoolState state = apply(registered(), new PoolInput.GrantsChecked(capacity(3, grant(1), grant(2))))
                .state();
        RecordedEvent relayed = RecordedEvent.ofPool(
                Fixtures.ref(2), CwEvent.CWNodePoolQuotaCheckFailed, "over quota", "quota-2", "capacity-service", NOW);
        CapacityChecked stale = capacity(2, grant(1)).withEvents(List.of(relayed));

        Outcome outcome = apply(state, new PoolInput.GrantsChecked(stale));

        assertThat(outcome.state()).isEqualTo(state);
        assertThat(outcome.events()).containsExactly(relayed);
        assertThat(outcome.state().capacity().events()).isNull();
    }

    @Test
    void shouldLeaveAPublishedReleaseToTheReconcileOfEveryPool() {
        PoolState state = registered();

        Outcome outcome = apply(
                state, new PoolInput.ReleasePublished(new NodeReleasePublished("stable", "2027.1.0", List.of(), NOW)));

        assertThat(outcome).isEqualTo(Outcome.unchanged(state));
    }

    @Test
    void shouldApplyAConfigurationRequestOnlyToThePoolIncarnationItNames() {
        PoolState state = registered();

        Outcome other = apply(state, new PoolInput.ConfigurationRequested(upgrade("uid-old")));
        Outcome own = apply(state, new PoolInput.ConfigurationRequested(upgrade(Fixtures.UID)));

        assertThat(other.events()).isEmpty();
        assertThat(other.state()).isEqualTo(state);
        assertThat(own.events())
                .extracting(RecordedEvent::message)
                .singleElement()
                .asString()
                .contains("no pending node configuration");
    }

    static NodeConfigurationRequested upgrade(String uid) {
        return new NodeConfigurationRequested(
                "up-" + uid,
                Fixtures.ORG,
                Fixtures.POOL,
                uid,
                NodeConfigurationRequested.Action.Upgrade,
                null,
                List.of(),
                NOW);
    }
}
