package com.coreweave.nodepool.provisioner.domain;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.grant;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.provisioner.domain.controllers.health.AlertCatalogue;
import com.coreweave.nodepool.provisioner.domain.model.NodeConfigState;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.Verdicts;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What holds across the controllers: idempotence, incarnations, deterministic event ids. */
class PoolReconcilerTest {

    static final Duration BOOT = Duration.ofSeconds(10);

    PoolDriver pool = new PoolDriver(policy(BOOT));

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
    void aControllerThatFailsIsNamedWithItsPool() {
        pool.spec(accepted(spec(1), 1)).grants(capacity(1, grant(1)));
        PoolState stored = pool.state;
        NodeConfigState configs = stored.configs();
        // A stored pool without an active configuration: boots cannot say what they boot.
        PoolState broken = new PoolState(
                stored.accepted(),
                stored.capacity(),
                stored.nodes(),
                stored.releasedGrants(),
                stored.bootFailureStreak(),
                stored.disabledMessage(),
                stored.scaling(),
                stored.episode(),
                stored.lastReconciled(),
                new NodeConfigState(
                        null,
                        configs.pending(),
                        configs.revisions(),
                        configs.specSource(),
                        configs.releaseSeen(),
                        configs.waiting(),
                        configs.handled()),
                stored.autoscaledVersion(),
                stored.autoscaleAt(),
                stored.handledRequests(),
                stored.deliveryError(),
                stored.disruptions(),
                stored.demand());

        assertThatThrownBy(() -> new PoolReconciler(policy(BOOT), AlertCatalogue.standard())
                        .reconcile(broken, pool.now.plus(BOOT), NodeReleases.INITIAL))
                .hasMessageContaining("controller lifecycle.boots failed on pool " + Fixtures.ORG + "/" + Fixtures.POOL)
                .hasCauseInstanceOf(NullPointerException.class);
    }

    @Test
    void theSummaryCarriesQuotasAndCapacitysVerdictsOfThisIncarnation() {
        pool.spec(accepted(spec(2), 1));
        assertThat(pool.summary())
                .as("no summary before capacity decided for the pool")
                .isNull();

        var decided = capacity(1, grant(1));
        pool.grants(new CapacityChecked(
                decided.pool(),
                Conditions.Capacity.PARTIAL,
                2,
                decided.grants(),
                1,
                1,
                1,
                "1 node queued",
                decided.checkedAt(),
                Conditions.Quota.UNDER,
                "within quota"));

        assertThat(pool.summary().verdicts())
                .isEqualTo(new Verdicts(
                        Conditions.Quota.UNDER, "within quota", Conditions.Capacity.PARTIAL, "1 node queued", 1));
    }

    @Test
    void theLedgersEventsAboutADecisionAreRecordedWithTheChangeItLeadsTo() {
        pool.spec(accepted(spec(1), 1));
        var queued = RecordedEvent.ofPool(
                Fixtures.ref(1),
                CwEvent.CWNodeRequestQueued,
                "Requested 1 node(s); 1 granted, 0 queued",
                "uid/demand-1",
                "capacity-service",
                Fixtures.T0);

        pool.grants(capacity(1, grant(1)).withEvents(List.of(queued)));

        assertThat(pool.last.events()).first().isEqualTo(queued);
        assertThat(pool.lastReasons()).contains("CWNodeAssigned");
        assertThat(pool.state.capacity().events())
                .as("the decision is kept without them")
                .isNull();
    }

    @Test
    void factsOfAnotherIncarnationAndSpecsOfAnOlderGenerationAreIgnored() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        pool.spec(accepted(spec(3), 3));

        pool.spec(accepted(spec(1), 2));
        assertThat(pool.state.accepted().generation()).isEqualTo(3);
        assertThat(pool.last.facts()).isEmpty();

        PoolRef other = new PoolRef(Fixtures.ORG, Fixtures.POOL, "uid-old", 9, Fixtures.ZONE, Fixtures.TYPE, "default");
        pool.grants(capacity(other, grant(7)));
        assertThat(pool.state.nodes()).hasSize(2);
        pool.apply(new PoolInput.PreemptionProgressed(
                new PreemptionFact.NodePreempted("r-9", other, machine(1), Fixtures.T0, pool.now, "Deadline")));
        assertThat(pool.state.nodes()).hasSize(2);
    }

    @Test
    void aPoolCreatedAgainUnderTheSameNameReleasesTheNodesOfTheOldOne() {
        pool.registered(Lifecycle.IDLE_ONLY, 1);

        pool.spec(accepted("uid-2", spec(1), 1, false));
        assertThat(pool.lastFacts(NodeRemoved.class)).singleElement().satisfies(r -> {
            assertThat(r.pool().uid()).isEqualTo(Fixtures.UID);
            assertThat(r.grant()).isEqualTo(grant(1));
        });
        assertThat(pool.state.nodes()).isEmpty();
        assertThat(pool.summary())
                .as("the new incarnation reports once capacity decided for it")
                .isNull();
        PoolRef again = new PoolRef(Fixtures.ORG, Fixtures.POOL, "uid-2", 1, Fixtures.ZONE, Fixtures.TYPE, "default");
        pool.grants(capacity(again, grant(2)));
        assertThat(pool.summary().pool().uid()).isEqualTo("uid-2");
    }

    @Test
    void everyEventIdNamesItsCauseSoAReplayRepeatsTheSameIds() {
        pool.registered(Lifecycle.IDLE_ONLY, 2);
        pool.spec(accepted(spec(0), 2));
        List<String> ids =
                new ArrayList<>(pool.events.stream().map(RecordedEvent::id).toList());
        assertThat(ids)
                .doesNotHaveDuplicates()
                .allMatch(id -> id.startsWith(PoolReconciler.COMPONENT + "/" + Fixtures.UID + "/"));

        PoolDriver replay = new PoolDriver(policy(BOOT));
        replay.spec(accepted(Fixtures.withStrategy(spec(2), Lifecycle.IDLE_ONLY), 1));
        replay.grants(capacity(1, grant(1), grant(2))).tick(BOOT).spec(accepted(spec(0), 2));
        assertThat(replay.events).extracting(RecordedEvent::id).containsExactlyElementsOf(ids);
    }

    @Test
    void thePoolIsKeptWithoutItsManagedFieldsButWithItsLabelsAndAnnotations() {
        NodePoolAccepted given = accepted(spec(1), 1);
        ObjectMeta meta = new ObjectMeta(
                given.nodePool().name(),
                given.uid(),
                1L,
                "rv-1",
                Fixtures.T0,
                null,
                Map.of("team", "research"),
                Map.of("owner", "ml-platform"),
                List.of(new ManagedFieldsEntry(
                        "kubectl",
                        ManagedFieldsEntry.UPDATE,
                        "compute.coreweave.com/v1alpha1",
                        Fixtures.T0,
                        ManagedFieldsEntry.FIELDS_V1,
                        Json.mapper()
                                .createObjectNode()
                                .set("f:spec", Json.mapper().createObjectNode()))));

        pool.spec(new NodePoolAccepted(
                given.org(), given.nodePool().withMetadata(meta), given.validation(), given.acceptedAt()));

        ObjectMeta kept = pool.state.accepted().nodePool().metadata();
        assertThat(kept.managedFields()).isNull();
        assertThat(kept.labels()).isEqualTo(meta.labels());
        assertThat(kept.annotations()).isEqualTo(meta.annotations());
    }
}
