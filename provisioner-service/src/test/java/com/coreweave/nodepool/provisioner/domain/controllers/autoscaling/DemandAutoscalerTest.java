package com.coreweave.nodepool.provisioner.domain.controllers.autoscaling;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.PoolInput;
import com.coreweave.nodepool.provisioner.domain.planner.DemandPlan;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.resource.Disruption;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.PendingDemand;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The autoscaler of a pool with {@code autoscaling: true} on the pending demand the demand planner gives it. */
class DemandAutoscalerTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration CONSOLIDATE = Duration.ofSeconds(30);

    PoolDriver pool = new PoolDriver(policy(BOOT));

    static NodePoolSpec autoscaled(int target, int min, Integer max, int weight) {
        NodePoolSpec s = Fixtures.spec(target);
        return new NodePoolSpec(
                s.computeClass(),
                s.instanceType(),
                target,
                min,
                max,
                s.nodeLabels(),
                s.nodeAnnotations(),
                s.nodeTaints(),
                null,
                null,
                true,
                s.lifecycle(),
                null,
                s.region(),
                new Disruption(null, CONSOLIDATE.toSeconds() + "s"),
                weight);
    }

    /** The pool at {@code target} with every node granted and registered (none, for 0). */
    PoolDriver at(NodePoolSpec spec, long generation) {
        pool.spec(accepted(spec, generation));
        pool.grants(capacity(
                generation,
                IntStream.rangeClosed(1, spec.targetNodes())
                        .mapToObj(Fixtures::grant)
                        .toArray(Grant[]::new)));
        return pool.tick(BOOT);
    }

    PoolDriver demand(int nodes, String... names) {
        return pool.apply(new PoolInput.DemandPlanned(
                new PoolDemand(Fixtures.ORG, Fixtures.POOL, nodes, names.length, List.of(names), null, null)));
    }

    List<CloudEvent<NodePoolRequested>> requests() {
        return pool.last.requests();
    }

    static int target(CloudEvent<NodePoolRequested> request) {
        return request.data().nodePool().spec().targetNodes();
    }

    @Test
    void anAutoscalingPoolOffersItsNodesLabelsTaintsAndWeightToThePlannerAndWithdrawsWhenDeleted() {
        at(autoscaled(0, 0, null, 30), 1);

        PoolOffer offer = pool.state.demand().offered();
        assertThat(offer.withdrawn()).isFalse();
        assertThat(offer.weight()).isEqualTo(30);
        assertThat(offer.maxNodes()).isNull();
        assertThat(offer.labels())
                .containsEntry("team", "research")
                .containsEntry(Node.LABEL_INSTANCE_TYPE, Fixtures.TYPE)
                .containsEntry(Node.LABEL_NODE_POOL, Fixtures.POOL);
        assertThat(offer.taints()).hasSize(1);

        pool.spec(null);

        assertThat(pool.last.offer()).isEqualTo(PoolOffer.withdrawn(Fixtures.ORG, Fixtures.POOL));
    }

    @Test
    void pendingDemandScalesAPoolUpFromZeroNamingTheWorkloads() {
        at(autoscaled(0, 0, null, 0), 1);

        demand(3, "train-llm");

        assertThat(requests())
                .singleElement()
                .extracting(DemandAutoscalerTest::target)
                .isEqualTo(3);
        assertThat(pool.lastReasons()).containsExactly("TriggeredScaleUp");
        assertThat(pool.last.events().get(0).message()).contains("train-llm", "targetNodes 0 -> 3");
        assertThat(pool.summary().pendingDemand()).as("the status shows it").isEqualTo(new PendingDemand(3, 1));
    }

    @Test
    void spareNodesServeDemandBeforeNewOnesAreAskedAndMaxNodesBoundsTheAsk() {
        at(autoscaled(2, 0, 4, 0), 1);

        demand(1, "small");
        assertThat(requests()).as("one of the two idle nodes serves it").isEmpty();

        demand(5, "big");
        assertThat(requests())
                .singleElement()
                .extracting(DemandAutoscalerTest::target)
                .isEqualTo(4);
    }

    @Test
    void demandWithdrawnWhileItsNodesAreStillQueuedLowersTheTargetBackToWhatIsPresent() {
        at(autoscaled(0, 0, null, 0), 1);
        demand(3, "job");
        assertThat(requests())
                .singleElement()
                .extracting(DemandAutoscalerTest::target)
                .isEqualTo(3);
        // The api-service accepts the raised target; capacity has granted nothing yet.
        pool.spec(accepted(autoscaled(3, 0, null, 0), 2));
        assertThat(requests()).isEmpty();

        pool.apply(new PoolInput.DemandPlanned(PoolDemand.none(Fixtures.ORG, Fixtures.POOL)));

        assertThat(requests())
                .singleElement()
                .extracting(DemandAutoscalerTest::target)
                .isEqualTo(0);
        assertThat(pool.lastReasons()).containsExactly("ScaleDown");
    }

    @Test
    void aTargetTheUserSetIsNeverLoweredForWantOfDemand() {
        at(autoscaled(0, 0, null, 0), 1);
        pool.spec(accepted(autoscaled(3, 0, null, 0), 2));
        demand(0);

        assertThat(pool.requestsSoFar()).isEmpty();
    }

    @Test
    void idleNodesAreConsolidatedAfterConsolidateAfterUnlessPendingDemandWaitsForThem() {
        at(autoscaled(2, 0, null, 0), 1);
        demand(2, "job");
        pool.tick(CONSOLIDATE.multipliedBy(2));
        assertThat(pool.requestsSoFar()).as("demand keeps its idle nodes").isEmpty();

        pool.apply(new PoolInput.DemandPlanned(PoolDemand.none(Fixtures.ORG, Fixtures.POOL)));

        assertThat(requests())
                .singleElement()
                .extracting(DemandAutoscalerTest::target)
                .isEqualTo(0);
        assertThat(pool.last.events().get(0).message()).contains("idle for 30s");
    }

    @Test
    void demandThatCannotBeMetIsRecordedAsNotTriggerScaleUpOncePerVerdict() {
        at(autoscaled(0, 0, null, 0), 1);
        PoolDemand blocked = new PoolDemand(
                Fixtures.ORG,
                Fixtures.POOL,
                0,
                0,
                List.of(),
                DemandPlan.GANG_DOES_NOT_FIT,
                "gang: 8 nodes of " + Fixtures.TYPE + " needed in " + Fixtures.ZONE + ", 6 free");

        pool.apply(new PoolInput.DemandPlanned(blocked));
        assertThat(pool.lastReasons()).containsExactly("NotTriggerScaleUp");
        assertThat(pool.last.events().get(0).message()).contains("GangDoesNotFit", "8 nodes", "6 free");
        assertThat(requests()).isEmpty();

        pool.apply(new PoolInput.DemandPlanned(blocked)).tick(BOOT);
        assertThat(pool.allReasons()).filteredOn("NotTriggerScaleUp"::equals).hasSize(1);
    }
}
