package com.coreweave.nodepool.provisioner.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.planner.DemandPlan;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.StreamsDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The demand planner's wiring without a broker: workloads re-keyed by org meet the pools' offers, a pool is given its
 * demand and a workload its verdict, only on a change, and an org's 1,001st workload is dead-lettered with the reason.
 */
class DemandPlannerTopologyTest {

    static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    StreamsDriver driver;

    @BeforeEach
    void start() {
        var policy = new ProvisioningPolicy(
                Duration.ofSeconds(5),
                0.0,
                0,
                Set.of(),
                3,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
        driver = StreamsDriver.start(
                "demand-planner-topology-test",
                T0,
                clock -> ProvisionerTopology.build(policy, Duration.ofMillis(500), 1, clock));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    void offer(String pool) {
        offer("demo", pool);
    }

    void offer(String org, String pool) {
        driver.pipeJson(
                Topics.POOL_OFFERED,
                org,
                new PoolOffer(
                        org,
                        pool,
                        false,
                        "gd-8xa100-i128",
                        "US-EAST-04A",
                        Map.of(),
                        List.of(),
                        0,
                        10,
                        0,
                        0,
                        0,
                        0,
                        false));
    }

    /** The planner's next look at the orgs that changed. */
    void plan() {
        driver.elapse(DemandPlanner.PLAN_INTERVAL);
    }

    void pending(String workload, int pods) {
        pending("demo", workload, pods, "{}");
    }

    /** A workload of {@code org} asking for A100 nodes with the labels {@code selector} (JSON). */
    void pending(String org, String workload, int pods, String selector) {
        driver.bytesInput(Topics.WORKLOAD_PENDING)
                .pipeInput(org + "/" + workload, """
                        {"specversion":"1.0","id":"%s","source":"scheduler/test","type":"WorkloadPending",\
                        "subject":"%s/%s","data":{"org":"%s","name":"%s","pods":%d,\
                        "needs":{"instanceType":"gd-8xa100-i128","nodeSelector":%s}}}""".formatted(workload, org, workload, org, workload, pods, selector)
                        .getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aPendingWorkloadGivesTheFittingPoolItsDemandAndItselfAVerdictOnlyWhenTheyChange() {
        offer("train");
        plan();
        assertThat(driver.values(Topics.POOL_DEMAND_PLANNED))
                .as("no demand, nothing to say")
                .isEmpty();

        pending("job", 2);
        plan();

        assertThat(driver.values(Topics.POOL_DEMAND_PLANNED))
                .singleElement()
                .extracting(PoolDemand::pool, PoolDemand::nodes, PoolDemand::names)
                .containsExactly("train", 2, List.of("job"));
        assertThat(driver.values(Topics.WORKLOAD_STATUS))
                .singleElement()
                .extracting(WorkloadStatus::pool, WorkloadStatus::reason)
                .containsExactly("train", DemandPlan.WAITING_FOR_NODES);

        pending("job", 2);
        driver.elapse(DemandPlanner.REPLAN_INTERVAL);
        assertThat(driver.values(Topics.POOL_DEMAND_PLANNED))
                .as("the same plan again")
                .isEmpty();
        assertThat(driver.values(Topics.WORKLOAD_STATUS)).isEmpty();

        driver.pipeJson(Topics.POOL_OFFERED, "demo", PoolOffer.withdrawn("demo", "train"));
        plan();
        assertThat(driver.values(Topics.POOL_DEMAND_PLANNED))
                .singleElement()
                .isEqualTo(PoolDemand.none("demo", "train"));
        assertThat(driver.values(Topics.WORKLOAD_STATUS))
                .singleElement()
                .extracting(WorkloadStatus::reason)
                .isEqualTo(DemandPlan.NO_POOL_FITS);
    }

    @Test
    void aBurstOfAThousandWorkloadsIsPlannedOnceAndTheOrgsNextOneIsDeadLetteredWithTheReason() {
        for (int i = 0; i < DemandPlanner.MAX_WORKLOADS_PER_ORG; i++) {
            pending("job-" + i, 1);
        }
        plan();
        assertThat(driver.values(Topics.WORKLOAD_STATUS))
                .as("a burst is planned once")
                .hasSize(DemandPlanner.MAX_WORKLOADS_PER_ORG);

        pending("one-too-many", 1);
        plan();

        List<TestRecord<String, String>> dead =
                driver.output(Topics.WORKLOAD_PENDING_DLQ).readRecordsToList();
        assertThat(dead).singleElement().satisfies(record -> {
            assertThat(record.key()).isEqualTo("demo/one-too-many");
            assertThat(header(record, DeadLetters.REASON)).contains("1000 workloads waiting");
        });
        assertThat(driver.values(Topics.WORKLOAD_STATUS)).isEmpty();
    }

    @Test
    void anotherOrgsPoolIsPlannedInTheNextLookWhateverABigOrgsPlanCosts() {
        // A thousand pools of one type and a thousand workloads of as many needs: the most work an org can ask for.
        for (int i = 0; i < 1_000; i++) {
            offer("big", "pool-" + i);
        }
        for (int i = 0; i < DemandPlanner.MAX_WORKLOADS_PER_ORG; i++) {
            pending("big", "job-" + i, 1, "{\"team\":\"t-" + i + "\"}");
        }
        offer("small", "train");
        pending("small", "job", 2, "{}");

        plan();
        List<WorkloadStatus> first = driver.values(Topics.WORKLOAD_STATUS);
        plan();
        List<WorkloadStatus> second = driver.values(Topics.WORKLOAD_STATUS);

        assertThat(first)
                .as("the big org's look: a whole plan, its later needs deferred at the plan's bound")
                .hasSize(DemandPlanner.MAX_WORKLOADS_PER_ORG)
                .allMatch(s -> s.org().equals("big"));
        assertThat(first.stream().filter(s -> DemandPlan.DEFERRED.equals(s.reason())))
                .as("needs beyond the plan's pool checks")
                .hasSize(DemandPlanner.MAX_WORKLOADS_PER_ORG - (DemandPlan.MAX_CHECKS_PER_PLAN - 1_000) / 1_000);
        assertThat(second)
                .as("the small org is next, one look later, not behind another plan of the big one")
                .singleElement()
                .extracting(WorkloadStatus::org, WorkloadStatus::pool)
                .containsExactly("small", "train");
        assertThat(driver.values(Topics.POOL_DEMAND_PLANNED))
                .extracting(PoolDemand::org, PoolDemand::pool, PoolDemand::nodes)
                .containsExactly(tuple("small", "train", 2));
    }

    static String header(TestRecord<String, String> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    static byte[] json(Object value) {
        return Json.bytes(value);
    }
}
