package com.coreweave.nodepool.provisioner.domain.planner;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The demand planner: which autoscaling pool is asked for how many nodes by pending workloads, and why one waits. */
class DemandPlanTest {

    static final String H100 = "gd-8xh100ib-i128";
    static final String A100 = "gd-8xa100-i128";
    static final String ZONE = "US-EAST-04A";
    static final String ZONE_B = "US-EAST-06A";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    final List<DemandPlan.Waiting> workloads = new ArrayList<>();
    final List<PoolOffer> offers = new ArrayList<>();
    final Map<ZoneTypeKey, FleetAvailability> fleet = new HashMap<>();
    final Map<String, InstanceType> catalogue = Map.of(
            H100, new InstanceType(H100, "8x H100", "H100", 8, 128, 2048, false, List.of(ZONE, ZONE_B)),
            A100, new InstanceType(A100, "8x A100", "A100", 8, 128, 1024, false, List.of(ZONE)));

    static PoolOffer pool(String name, String type, String zone, Integer max, int weight) {
        return new PoolOffer(
                "acme",
                name,
                false,
                type,
                zone,
                Map.of("node.kubernetes.io/instance-type", type, "team", "ml"),
                List.of(),
                0,
                max,
                weight,
                0,
                0,
                0,
                false);
    }

    static Workload.Needs type(String type) {
        return new Workload.Needs(type, null, null, Map.of(), List.of(), null);
    }

    void pending(String name, int pods, boolean gang, Workload.Needs needs) {
        workloads.add(new DemandPlan.Waiting(
                new Workload("acme", name, pods, gang, needs, null), T0.plusSeconds(workloads.size())));
    }

    void free(String zone, String type, int free) {
        fleet.put(new ZoneTypeKey(zone, type), new FleetAvailability(zone, type, free + 10, free, 0));
    }

    DemandPlan.Result plan() {
        return DemandPlan.plan(workloads, offers, fleet::get, catalogue::get);
    }

    static PoolDemand demand(DemandPlan.Result result, String pool) {
        return result.demands().stream()
                .filter(d -> d.pool().equals(pool))
                .findFirst()
                .orElseThrow();
    }

    static WorkloadStatus status(DemandPlan.Result result, String workload) {
        return result.statuses().stream()
                .filter(s -> s.name().equals(workload))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aPendingWorkloadAsksItsPoolForOneNodePerPodWhenPodsTakeWholeNodes() {
        offers.add(pool("train", H100, ZONE, 10, 0));
        pending("job-a", 3, false, type(H100));

        DemandPlan.Result result = plan();

        assertThat(demand(result, "train").nodes()).isEqualTo(3);
        assertThat(demand(result, "train").names()).containsExactly("job-a");
        assertThat(status(result, "job-a").pool()).isEqualTo("train");
        assertThat(status(result, "job-a").phase()).isEqualTo(WorkloadStatus.PENDING);
    }

    @Test
    void podsAskingForSomeGpusShareANodeByGpuModel() {
        offers.add(pool("train", H100, ZONE, null, 0));
        pending("job-a", 5, false, new Workload.Needs(null, "H100", 2, Map.of(), List.of(), null));

        // 4 pods of 2 GPUs on each 8-GPU node: 5 pods need 2 nodes.
        assertThat(demand(plan(), "train").nodes()).isEqualTo(2);
    }

    @Test
    void aPoolOfAnotherGpuModelOrWithoutTheSelectedLabelOrWithAnUntoleratedTaintDoesNotFit() {
        offers.add(pool("a100", A100, ZONE, null, 50));
        PoolOffer tainted = pool("tainted", H100, ZONE, null, 40);
        offers.add(new PoolOffer(
                "acme",
                "tainted",
                false,
                H100,
                ZONE,
                tainted.labels(),
                List.of(new Taint("dedicated", "infer", "NoSchedule")),
                0,
                null,
                40,
                0,
                0,
                0,
                false));
        offers.add(pool("h100", H100, ZONE, null, 0));
        pending("job-a", 1, false, new Workload.Needs(null, "H100", 8, Map.of("team", "ml"), List.of(), null));
        pending("job-b", 1, false, new Workload.Needs(null, "H100", 8, Map.of("team", "search"), List.of(), null));

        DemandPlan.Result result = plan();

        assertThat(status(result, "job-a").pool()).isEqualTo("h100");
        assertThat(status(result, "job-b").reason()).isEqualTo(DemandPlan.NO_POOL_FITS);
        assertThat(demand(result, "tainted").nodes()).isZero();
        assertThat(demand(result, "a100").nodes()).isZero();
    }

    @Test
    void aTolerationLetsAWorkloadOntoATaintedPool() {
        offers.add(new PoolOffer(
                "acme",
                "tainted",
                false,
                H100,
                ZONE,
                Map.of(),
                List.of(new Taint("dedicated", "infer", "NoSchedule")),
                0,
                null,
                0,
                0,
                0,
                0,
                false));
        pending(
                "job-a",
                1,
                false,
                new Workload.Needs(
                        H100,
                        null,
                        null,
                        Map.of(),
                        List.of(new Workload.Toleration("dedicated", "Equal", "infer", "NoSchedule")),
                        null));

        assertThat(demand(plan(), "tainted").nodes()).isEqualTo(1);
    }

    @Test
    void theHighestWeightPoolIsAskedFirstAndTheNextWhenItsZoneHasNoFreeMachine() {
        offers.add(pool("preferred", H100, ZONE, null, 10));
        offers.add(pool("fallback", H100, ZONE_B, null, 1));
        pending("job-a", 2, false, type(H100));
        free(ZONE, H100, 5);
        free(ZONE_B, H100, 5);

        assertThat(demand(plan(), "preferred").nodes()).isEqualTo(2);

        free(ZONE, H100, 0);
        DemandPlan.Result result = plan();

        assertThat(demand(result, "preferred").nodes()).isZero();
        assertThat(demand(result, "preferred").blocked()).isNull();
        assertThat(demand(result, "fallback").nodes()).isEqualTo(2);
        assertThat(status(result, "job-a").pool()).isEqualTo("fallback");
    }

    @Test
    void aPoolThatCapacityKeepsWaitingIsSkippedForTheNext() {
        PoolOffer queued = pool("preferred", H100, ZONE, null, 10);
        offers.add(new PoolOffer(
                "acme", "preferred", false, H100, ZONE, queued.labels(), List.of(), 0, null, 10, 2, 0, 2, true));
        offers.add(pool("fallback", H100, ZONE_B, null, 1));
        pending("job-a", 2, false, type(H100));

        assertThat(demand(plan(), "fallback").nodes()).isEqualTo(2);
    }

    @Test
    void podsThatMayRunApartSpillOverToTheNextPoolAtMaxNodes() {
        offers.add(pool("small", H100, ZONE, 2, 10));
        offers.add(pool("big", H100, ZONE, 10, 0));
        pending("job-a", 5, false, type(H100));

        DemandPlan.Result result = plan();

        assertThat(demand(result, "small").nodes()).isEqualTo(2);
        assertThat(demand(result, "big").nodes()).isEqualTo(3);
        assertThat(status(result, "job-a").nodes()).isEqualTo(5);
    }

    @Test
    void aGangOfEightWaitsWholeWhenTheFleetHasSixFreeMachinesAndSaysWhy() {
        offers.add(pool("train", H100, ZONE, null, 0));
        free(ZONE, H100, 6);
        pending("gang", 8, true, type(H100));

        DemandPlan.Result result = plan();

        assertThat(demand(result, "train").nodes()).isZero();
        assertThat(demand(result, "train").blocked()).isEqualTo(DemandPlan.GANG_DOES_NOT_FIT);
        assertThat(demand(result, "train").message()).contains("8 nodes of " + H100 + " needed", "6 free");
        assertThat(status(result, "gang").reason()).isEqualTo(DemandPlan.GANG_DOES_NOT_FIT);
        assertThat(status(result, "gang").nodes()).isZero();
    }

    @Test
    void aGangThatDoesNotFitLeavesTheFreeMachinesToTheWorkloadsAfterIt() {
        offers.add(pool("train", H100, ZONE, null, 0));
        free(ZONE, H100, 6);
        pending("gang", 8, true, type(H100));
        pending("small", 4, false, type(H100));

        DemandPlan.Result result = plan();

        assertThat(demand(result, "train").nodes()).isEqualTo(4);
        assertThat(status(result, "small").pool()).isEqualTo("train");
    }

    @Test
    void aGangIsGrantedWholeWhenThePoolsIdleNodesAndTheFreeMachinesSufficeTogether() {
        PoolOffer offer = pool("train", H100, ZONE, null, 0);
        offers.add(new PoolOffer(
                "acme", "train", false, H100, ZONE, offer.labels(), List.of(), 0, null, 0, 3, 3, 0, false));
        free(ZONE, H100, 5);
        pending("gang", 8, true, type(H100));

        assertThat(demand(plan(), "train").nodes()).isEqualTo(8);
    }

    @Test
    void aGangLargerThanMaxNodesWaitsWithMaxNodesReached() {
        offers.add(pool("train", H100, ZONE, 4, 0));
        pending("gang", 8, true, type(H100));

        DemandPlan.Result result = plan();

        assertThat(status(result, "gang").reason()).isEqualTo(DemandPlan.MAX_NODES_REACHED);
        assertThat(demand(result, "train").blocked()).isEqualTo(DemandPlan.MAX_NODES_REACHED);
    }

    @Test
    void workloadsAreServedInArrivalOrderAndScheduledOnesAskNothing() {
        offers.add(pool("train", H100, ZONE, 3, 0));
        pending("first", 3, false, type(H100));
        pending("second", 3, false, type(H100));
        workloads.add(
                new DemandPlan.Waiting(new Workload("acme", "placed", 2, false, type(H100), 2), T0.minusSeconds(10)));

        DemandPlan.Result result = plan();

        assertThat(status(result, "first").nodes()).isEqualTo(3);
        assertThat(status(result, "second").reason()).isEqualTo(DemandPlan.MAX_NODES_REACHED);
        assertThat(status(result, "placed").phase()).isEqualTo(WorkloadStatus.SCHEDULED);
        assertThat(demand(result, "train").nodes()).isEqualTo(3);
    }

    @Test
    void aWithdrawnPoolIsAskedNothing() {
        offers.add(PoolOffer.withdrawn("acme", "gone"));
        pending("job-a", 1, false, type(H100));

        DemandPlan.Result result = plan();

        assertThat(result.demands()).isEmpty();
        assertThat(status(result, "job-a").reason()).isEqualTo(DemandPlan.NO_POOL_FITS);
    }

    @Test
    void aThousandWorkloadsOfOneNeedLookForTheirPoolsOnceAndOnlyAmongPoolsOfTheirType() {
        for (int i = 0; i < 500; i++) {
            offers.add(pool("a100-" + i, A100, ZONE, null, 0));
            offers.add(pool("h100-" + i, H100, ZONE, null, 0));
        }
        for (int i = 0; i < 1_000; i++) {
            pending("job-" + i, 1, false, type(A100));
        }

        DemandPlan.Result result = plan();

        assertThat(result.work())
                .as("the pools indexed once, the A100 pools checked once, each workload placed")
                .isEqualTo(1_000 + 500 + 1_000);
        assertThat(result.statuses()).allMatch(s -> s.pool() != null && s.pool().startsWith("a100-"));
    }

    @Test
    void aPlanStopsLookingForTheNeedsItHasNotSeenAtItsBoundAndDefersTheirWorkloadsInArrivalOrder() {
        for (int i = 0; i < 1_000; i++) {
            offers.add(pool("p-" + String.format("%04d", i), A100, ZONE, null, 0));
        }
        for (int i = 0; i < 1_000; i++) {
            pending(
                    "job-" + i,
                    1,
                    false,
                    new Workload.Needs(A100, null, null, Map.of("team", "t-" + i), List.of(), null));
        }

        DemandPlan.Result result = plan();

        int looked = (DemandPlan.MAX_CHECKS_PER_PLAN - 1_000) / 1_000;
        assertThat(result.work()).isLessThanOrEqualTo(DemandPlan.MAX_CHECKS_PER_PLAN + 1_000);
        assertThat(result.statuses().subList(0, looked))
                .as("the first workloads' needs were looked at: no pool has their team label")
                .allMatch(s -> DemandPlan.NO_POOL_FITS.equals(s.reason()));
        assertThat(result.statuses().subList(looked, 1_000)).allSatisfy(s -> {
            assertThat(s.reason()).isEqualTo(DemandPlan.DEFERRED);
            assertThat(s.phase()).isEqualTo(WorkloadStatus.PENDING);
        });
    }
}
