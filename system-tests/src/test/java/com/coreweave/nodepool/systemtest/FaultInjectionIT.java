package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.harness.Service;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The failures only a fault produces, on a running stack: an operator arms a fault at one point of one service for one
 * pool ({@code /admin/faults}), the pool shows the reference's {@code InternalError} reason or failure event as a user
 * sees it, and once the fault is disarmed (or its count spent) the pool recovers.
 */
@StackUse.Shares
@ResourceLock(FaultInjectionIT.ZONE + "/" + FaultInjectionIT.TYPE)
class FaultInjectionIT {

    static final String ZONE = "US-EAST-08A";
    static final String TYPE = "gb200-4x";
    static final Duration WAIT = Duration.ofSeconds(45);

    OnePool pool;

    @BeforeAll
    static void fleet() {
        OnePool.in("unused", ZONE, TYPE, 12);
    }

    @AfterEach
    void cleanUp() {
        for (Service service : new Service[] {Service.API, Service.QUOTA, Service.CAPACITY, Service.PROVISIONER}) {
            SystemStack.admin(service).delete("/admin/faults");
        }
        if (pool != null) {
            pool.demo.delete(pool.path());
        }
    }

    OnePool create(String name, int target) {
        pool = OnePool.in(name, ZONE, TYPE, 12);
        var created = pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":%d}}""".formatted(name, TYPE, ZONE, target));
        assertThat(created.code()).as("create answered %s", created.body()).isEqualTo(201);
        return pool;
    }

    void arm(Service service, String point, String more) {
        var armed = SystemStack.admin(service)
                .put(
                        "/admin/faults/" + point,
                        "{\"org\":\"demo\",\"pool\":\"" + pool.name + "\",\"message\":\"drill\"" + more + "}");
        assertThat(armed.code()).as("arming answered %s", armed.body()).isEqualTo(200);
        assertThat(armed.text("/armedBy")).isEqualTo("admin");
    }

    void disarm(Service service, String point) {
        var answer = SystemStack.admin(service).delete("/admin/faults/" + point + "?org=demo&pool=" + pool.name);
        assertThat(answer.code()).as("disarming answered %s", answer.body()).isEqualTo(200);
    }

    void scale(int target) {
        var answer = pool.demo.patch(pool.path(), "{\"spec\":{\"targetNodes\":" + target + "}}");
        assertThat(answer.code()).as("scale answered %s", answer.body()).isEqualTo(200);
    }

    void awaitReason(String condition, String reason) {
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(300))
                .untilAsserted(
                        () -> assertThat(SpineIT.reason(pool.get(), condition)).startsWith(reason + "/"));
    }

    /** Awaits a Warning of {@code reason} on the pool whose message says {@code says}. */
    void awaitEvent(String reason, String says) {
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(300))
                .untilAsserted(() -> assertThat(pool.events(reason))
                        .anySatisfy(e -> assertThat(e).startsWith("Warning: ").contains(says)));
    }

    void awaitTargetMet(int nodes) {
        NodeHealthIT.awaitTargetMet(pool, nodes);
    }

    @Test
    void onlyAnOperatorArmsAFaultAndOnlyWhereAServiceHasFaultPoints() {
        pool = null;
        assertThat(SystemStack.admin(Service.PREEMPTION).get("/admin/faults").code())
                .as("the preemption-service has no fault points")
                .isEqualTo(404);
        assertThat(SystemStack.api("demo-token").get("/admin/faults").code()).isEqualTo(403);
        var points = SystemStack.admin(Service.PROVISIONER).get("/admin/faults");
        assertThat(points.body().path("points").toString())
                .contains("node-delivery", "node-registration", "node-removal", "config-staging");
        var unscoped = SystemStack.admin(Service.QUOTA).put("/admin/faults/quota-check", "{}");
        assertThat(unscoped.code()).isEqualTo(400);
        var unknown = SystemStack.admin(Service.QUOTA).put("/admin/faults/node-removal", "{\"zone\":\"" + ZONE + "\"}");
        assertThat(unknown.code()).isEqualTo(400);
    }

    @Test
    void aQuotaCheckFaultIsQuotaInternalErrorUntilDisarmed() {
        create("fault-quota", 0);
        arm(Service.QUOTA, "quota-check", "");
        assertThat(SystemStack.admin(Service.QUOTA)
                        .get("/admin/faults")
                        .body()
                        .path("armed")
                        .toString())
                .contains("quota-check", "fault-quota");
        scale(1);
        awaitReason("Quota", "InternalError");
        awaitEvent("CWNodePoolQuotaCheckFailed", "injected fault");

        disarm(Service.QUOTA, "quota-check");
        scale(2);
        awaitReason("Quota", "Under");
        awaitTargetMet(2);
    }

    @Test
    void aCapacityCheckFaultIsCapacityInternalErrorUntilDisarmed() {
        create("fault-capacity", 0);
        arm(Service.CAPACITY, "capacity-check", "");
        scale(1);
        awaitReason("Capacity", "InternalError");

        disarm(Service.CAPACITY, "capacity-check");
        scale(2);
        awaitReason("Capacity", "Sufficient");
        awaitTargetMet(2);
    }

    @Test
    void aValidationFaultIsValidatedInternalErrorUntilDisarmedThenThePoolIsValidatedAgain() {
        pool = OnePool.in("fault-validation", ZONE, TYPE, 12);
        arm(Service.API, "validation", "");
        create("fault-validation", 1);
        awaitReason("Validated", "InternalError");

        disarm(Service.API, "validation");
        awaitReason("Validated", "Valid");
        awaitTargetMet(1);
    }

    @Test
    void aRequestFaultFailsAnUpdateWithInternalErrorAndAWarningOnThePool() {
        create("fault-request", 1);
        awaitTargetMet(1);
        arm(Service.API, "nodes-request", ",\"count\":1");

        var failed = pool.demo.patch(pool.path(), "{\"spec\":{\"targetNodes\":2}}");
        assertThat(failed.code()).as("answered %s", failed.body()).isEqualTo(500);
        assertThat(failed.text("/reason")).isEqualTo("InternalError");
        awaitEvent("CWNodePoolNodesRequestFailed", "injected fault");

        scale(2);
        awaitTargetMet(2);
    }

    @Test
    void aDeliveryFaultSendsTheMachineToMaintenanceAndAnotherBecomesTheNode() {
        failsOnceThenReachesTarget("fault-delivery", "node-delivery", "CWNodeDeliverFail");
    }

    @Test
    void aRegistrationFaultFailsOneBootAndTheNodeIsBootedAgain() {
        failsOnceThenReachesTarget("fault-registration", "node-registration", "CWNodeRegistrationFailed");
    }

    @Test
    void bootsThatNeverRegisterDisableThePoolAndItSaysEachNodeWasRemoved() {
        pool = OnePool.in("fault-disabled", ZONE, TYPE, 12);
        arm(Service.PROVISIONER, "node-registration", "");
        create("fault-disabled", 2);
        awaitEvent("CWNodePoolDisabled", "boot failures in a row");
        await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
            assertThat(pool.nodes()).isEmpty();
            assertThat(pool.events("CWNodePoolNodesRemoved"))
                    .filteredOn(e -> e.contains("Removed after repeated boot failures."))
                    .hasSize(2)
                    .allSatisfy(e -> assertThat(e).startsWith("Normal: "));
        });
        disarm(Service.PROVISIONER, "node-registration");
    }

    /** A provisioner fault armed for one failure before the pool exists: its event, then the pool at target. */
    void failsOnceThenReachesTarget(String name, String point, String event) {
        pool = OnePool.in(name, ZONE, TYPE, 12);
        arm(Service.PROVISIONER, point, ",\"count\":1");
        create(name, 1);
        awaitEvent(event, "injected fault");
        awaitTargetMet(1);
    }

    @Test
    void aRemovalFaultHoldsTheNodeWithInternalErrorsUntilDisarmed() {
        create("fault-removal", 2);
        awaitTargetMet(2);
        arm(Service.PROVISIONER, "node-removal", "");

        scale(1);
        awaitEvent("CWNodePoolNodesRemoveError", "failed (attempt");
        awaitReason("AtTarget", "InternalError");
        disarm(Service.PROVISIONER, "node-removal");
        awaitTargetMet(1);

        arm(Service.PROVISIONER, "node-removal", "");
        assertThat(pool.demo.delete(pool.path()).code()).isEqualTo(200);
        awaitReason("NodesRemoved", "InternalError");
        disarm(Service.PROVISIONER, "node-removal");
        await().atMost(WAIT).untilAsserted(() -> assertThat(pool.get().code()).isEqualTo(404));
    }
}
