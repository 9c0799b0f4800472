package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.TopicProbe;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Autoscaling on pending demand through all five services: a cluster's scheduler publishes {@code WorkloadPending} to
 * {@code workload-pending} (here with a plain producer on an explicit partition, as kcat would), the provisioner's
 * demand planner gives the pool that fits the nodes it needs, and the autoscaler asks the api-service for them; quota
 * and capacity decide as for anyone. Each test has a zone × instance type no other test uses, and its workloads name
 * their zone where another test's pools would fit them too (the planner plans the whole org).
 */
@StackUse.Shares
@ResourceLock("demo-autoscaling")
class DemandIT {

    static final Duration WAIT = Duration.ofSeconds(45);
    static TopicProbe kafka;
    static int published;

    @BeforeAll
    static void connect() {
        kafka = new TopicProbe(SystemStack.get().bootstrapServers());
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    static OnePool autoscaled(String name, String zone, String type, int machines, int weight) {
        OnePool pool = OnePool.in(name, zone, type, machines);
        var created = pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","autoscaling":true,"minNodes":0,"targetNodes":0,"weight":%d,
                 "disruption":{"consolidateAfter":"2s"}}}""".formatted(name, type, zone, weight));
        assertThat(created.code()).as("create answered %s", created.body()).isEqualTo(201);
        return pool;
    }

    /** Publishes a workload's CloudEvent on partition 2 of {@code workload-pending}, whatever its key's partition. */
    static void publish(String type, String workload, String data) {
        kafka.sendToPartition(Topics.WORKLOAD_PENDING.name(), 2, "demo/" + workload, """
        {"specversion":"1.0","id":"demand-it-%d","source":"scheduler/demand-it","type":"%s","subject":"demo/%s",
         "datacontenttype":"application/json","data":%s}""".formatted(
                        ++published, type, workload, data));
    }

    static void pending(String workload, int pods, boolean gang, String needs) {
        publish("WorkloadPending", workload, """
                {"org":"demo","name":"%s","pods":%d,"gang":%b,"needs":%s}""".formatted(workload, pods, gang, needs));
    }

    static void awaitAtTarget(OnePool pool, int nodes) {
        await().atMost(WAIT).untilAsserted(() -> {
            Api.Answer answer = pool.get();
            assertThat(answer.number("/spec/targetNodes")).isEqualTo(nodes);
            assertThat(answer.number("/status/currentNodes")).isEqualTo(nodes);
            assertThat(answer.condition("AtTarget").path("reason").asText()).isEqualTo("TargetMet");
        });
    }

    /** Waits until the capacity-service has published the ledger's free machines (the planner reads them). */
    static void awaitFree(String zone, String type, int free) {
        kafka.awaitRecord(
                Topics.FLEET_AVAILABILITY.name(),
                r -> (zone + "/" + type).equals(r.key())
                        && r.value() != null
                        && r.as(FleetAvailability.class).free() == free,
                WAIT);
    }

    @Test
    void aPoolGoesFromZeroToTheNodesAPublishedWorkloadNeedsAndBackToZeroOnceItIsGone() {
        OnePool pool = autoscaled("demand-zero", "US-EAST-06A", "cd-hp-a96-genoa", 4, 0);
        awaitAtTarget(pool, 0);

        pending("batch-zero", 3, false, "{\"instanceType\":\"cd-hp-a96-genoa\",\"zone\":\"US-EAST-06A\"}");

        awaitAtTarget(pool, 3);
        await().atMost(WAIT).untilAsserted(() -> {
            Api.Answer answer = pool.get();
            assertThat(answer.number("/status/pendingDemand/nodes"))
                    .as("the pool's status shows what its pending workloads need: %s", answer.body())
                    .isEqualTo(3);
        });
        assertThat(pool.events("TriggeredScaleUp"))
                .singleElement()
                .asString()
                .contains("batch-zero", "targetNodes 0 -> 3");
        WorkloadStatus status = kafka.awaitRecord(
                        Topics.WORKLOAD_STATUS.name(),
                        r -> "demo/batch-zero".equals(r.key()) && r.value() != null,
                        WAIT)
                .as(WorkloadStatus.class);
        assertThat(status.pool()).isEqualTo("demand-zero");
        assertThat(status.nodes()).isEqualTo(3);

        publish("WorkloadGone", "batch-zero", "{\"org\":\"demo\",\"name\":\"batch-zero\"}");

        awaitAtTarget(pool, 0);
        assertThat(pool.events("ScaleDown"))
                .as("consolidated after the pool's consolidateAfter, not the platform's 5 s")
                .singleElement()
                .asString()
                .contains("idle for 2s", "targetNodes 3 -> 0");
        assertThat(pool.get().body().at("/status/pendingDemand").isMissingNode())
                .isTrue();
    }

    @Test
    void aGangOfEightOnAFleetWithSixFreeMachinesWaitsWholeAndSaysWhy() {
        OnePool pool = autoscaled("demand-gang", "US-EAST-08A", "gd-8xh200ib-i128", 6, 0);
        awaitFree("US-EAST-08A", "gd-8xh200ib-i128", 6);

        pending("gang-of-8", 8, true, "{\"gpuModel\":\"H200\",\"gpus\":8}");

        WorkloadStatus status = kafka.awaitRecord(
                        Topics.WORKLOAD_STATUS.name(), r -> "demo/gang-of-8".equals(r.key()) && r.value() != null, WAIT)
                .as(WorkloadStatus.class);
        assertThat(status.phase()).isEqualTo(WorkloadStatus.PENDING);
        assertThat(status.reason()).isEqualTo("GangDoesNotFit");
        assertThat(status.message()).contains("8 nodes", "6 free");
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.events("NotTriggerScaleUp"))
                        .singleElement()
                        .asString()
                        .contains("GangDoesNotFit", "gang-of-8", "6 free"));
        assertThat(pool.get().number("/spec/targetNodes"))
                .as("no node of the gang was asked")
                .isZero();
        assertThat(pool.events("TriggeredScaleUp")).isEmpty();
    }

    @Test
    void whenThePreferredPoolsZoneHasNoFreeMachineTheNextPoolScalesUp() {
        // The preferred zone had a machine once and has none now: its ledger says free 0.
        SystemStack.fleet("US-EAST-06A", "cd-gp-a192-genoa", 1);
        OnePool preferred = autoscaled("demand-preferred", "US-EAST-06A", "cd-gp-a192-genoa", 0, 50);
        OnePool fallback = autoscaled("demand-fallback", "EU-SOUTH-04A", "cd-gp-a192-genoa", 2, 10);
        awaitFree("US-EAST-06A", "cd-gp-a192-genoa", 0);

        pending("needs-a192", 1, false, "{\"instanceType\":\"cd-gp-a192-genoa\"}");

        awaitAtTarget(fallback, 1);
        assertThat(preferred.get().number("/spec/targetNodes")).isZero();
        assertThat(preferred.events("TriggeredScaleUp")).isEmpty();
    }

    @Test
    void aWorkloadPostedThroughTheApiScalesItsPoolAndIsReadOnlyByItsOrg() {
        OnePool pool = autoscaled("demand-rest", "EU-SOUTH-04A", "cd-hp-a96-genoa", 2, 0);
        String workloads = "/apis/compute.coreweave.com/v1alpha1/workloads";

        Api.Answer bad = pool.demo.post(workloads, """
        {"name":"rest-job","pods":0,"needs":{"instanceType":"cd-hp-a96-genoa","zone":"EU-SOUTH-04A"}}""");
        assertThat(bad.code()).isEqualTo(422);
        assertThat(bad.body().path("message").asText()).contains("pods");

        Api.Answer posted = pool.demo.post(workloads, """
        {"name":"rest-job","pods":2,"needs":{"instanceType":"cd-hp-a96-genoa","zone":"EU-SOUTH-04A"}}""");
        assertThat(posted.code()).as("post answered %s", posted.body()).isEqualTo(202);
        assertThat(posted.body().path("org").asText()).isEqualTo("demo");

        awaitAtTarget(pool, 2);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.demo
                                .get(workloads + "/rest-job")
                                .body()
                                .path("pool")
                                .asText())
                        .isEqualTo("demand-rest"));
        assertThat(pool.demo.get(workloads).body().path("items").findValuesAsText("name"))
                .contains("rest-job");
        Api other = SystemStack.api("other-token");
        assertThat(other.get(workloads + "/rest-job").code()).isEqualTo(404);
        assertThat(other.get(workloads).body().path("items").findValuesAsText("name"))
                .doesNotContain("rest-job");
        assertThat(other.delete(workloads + "/rest-job").code()).isEqualTo(404);

        assertThat(pool.demo.delete(workloads + "/rest-job").code()).isEqualTo(202);
        awaitAtTarget(pool, 0);
    }
}
