package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 10's proof that a user's honest mistake costs no running node: an update the platform refuses after accepting
 * it (an invalid spec, spot on a Superchip type) or a scale-up over quota keeps every node, with the same names, for
 * longer than many reconcile ticks; fixing the mistake brings the pool back to TargetMet with the same nodes.
 */
@StackUse.Shares
class NoNodeLostToAMistakeIT {

    static final String ZONE = "US-WEST-04A";
    /** Several reconcile ticks of the provisioner (200 ms here) and boot times (2 s): time enough to do harm. */
    static final Duration HOLD = Duration.ofSeconds(6);

    @Test
    void anInvalidUpdateAndAnOverQuotaScaleUpKeepEveryNodeOfABusyPool() throws InterruptedException {
        OnePool pool = OnePool.in("steady", ZONE, "gd-8xl40-i128", 3);
        assertThat(pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"steady"},
         "spec":{"instanceType":"gd-8xl40-i128","targetNodes":2,"region":"US-WEST-04A",
                 "lifecycle":{"scaleDownStrategy":"PreferIdle"}}}""").code()).isEqualTo(201);
        List<String> nodes = awaitTargetMet(pool, 2);
        assertThat(pool.demo
                        .put(
                                pool.path() + "/nodes/" + nodes.getFirst() + "/activity",
                                "{\"active\": true, \"terminationGracePeriodSeconds\": 30}")
                        .code())
                .isBetween(200, 204);

        // minNodes above targetNodes with autoscaling on: accepted (200), then refused by the platform validation.
        assertThat(pool.demo
                        .patch(pool.path(), "{\"spec\":{\"autoscaling\":true,\"minNodes\":5,\"maxNodes\":6}}")
                        .code())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() ->
                        assertThat(SpineIT.reason(pool.get(), "Validated")).isEqualTo("Invalid/False"));
        holdAndAssertKept(pool, nodes);
        assertThat(pool.get().condition("Validated").path("message").asText())
                .contains("Generation 2 was not applied; generation 1 stays in force.");
        assertThat(pool.events("CWNodePoolNodesRequestFailed"))
                .singleElement()
                .asString()
                .startsWith("Warning: ")
                .contains("Generation 2", "not applied");

        assertThat(pool.demo
                        .patch(pool.path(), "{\"spec\":{\"autoscaling\":false,\"minNodes\":null,\"maxNodes\":null}}")
                        .code())
                .isEqualTo(200);
        assertThat(awaitTargetMet(pool, 2)).containsExactlyElementsOf(nodes);
        assertThat(pool.get().number("/metadata/generation")).isEqualTo(3);

        // A scale-up the quota (3) cannot admit keeps what the pool holds.
        assertThat(pool.demo
                        .patch(pool.path(), "{\"spec\":{\"targetNodes\":5}}")
                        .code())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(SpineIT.reason(pool.get(), "Quota")).isEqualTo("Over/False"));
        holdAndAssertKept(pool, nodes);
        assertThat(pool.demo
                        .patch(pool.path(), "{\"spec\":{\"targetNodes\":2}}")
                        .code())
                .isEqualTo(200);
        assertThat(awaitTargetMet(pool, 2)).containsExactlyElementsOf(nodes);
    }

    @Test
    void spotOnASuperchipTypeIsRefusedAndTheReservedNodeStays() throws InterruptedException {
        OnePool pool = OnePool.in("superchip", ZONE, "gd-1xgh200", 1);
        assertThat(pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"superchip"},
         "spec":{"instanceType":"gd-1xgh200","targetNodes":1,"region":"US-WEST-04A"}}""").code()).isEqualTo(201);
        List<String> nodes = awaitTargetMet(pool, 1);

        assertThat(pool.demo
                        .patch(pool.path(), "{\"spec\":{\"computeClass\":\"spot\"}}")
                        .code())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() ->
                        assertThat(SpineIT.reason(pool.get(), "Validated")).isEqualTo("Invalid/False"));
        holdAndAssertKept(pool, nodes);

        assertThat(pool.demo
                        .patch(pool.path(), "{\"spec\":{\"computeClass\":\"default\"}}")
                        .code())
                .isEqualTo(200);
        assertThat(awaitTargetMet(pool, 1)).containsExactlyElementsOf(nodes);
    }

    /** Waits a good while, checking all along that every node stays registered and none is being removed. */
    private static void holdAndAssertKept(OnePool pool, List<String> nodes) throws InterruptedException {
        long until = System.nanoTime() + HOLD.toNanos();
        while (System.nanoTime() < until) {
            List<JsonNode> now = pool.nodes();
            assertThat(names(now)).containsExactlyInAnyOrderElementsOf(nodes);
            assertThat(now).allSatisfy(n -> {
                assertThat(n.at("/status/phase").asText()).isEqualTo("Registered");
                assertThat(n.at("/spec/unschedulable").asBoolean(false))
                        .as("cordoned")
                        .isFalse();
            });
            assertThat(pool.get().number("/status/currentNodes")).isEqualTo(nodes.size());
            Thread.sleep(300);
        }
    }

    private static List<String> awaitTargetMet(OnePool pool, int target) {
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            Api.Answer answer = pool.get();
            assertThat(SpineIT.reason(answer, "AtTarget")).isEqualTo("TargetMet/True");
            assertThat(SpineIT.reason(answer, "Validated")).isEqualTo("Valid/True");
            assertThat(answer.number("/status/currentNodes")).isEqualTo(target);
        });
        return names(pool.nodes());
    }

    private static List<String> names(List<JsonNode> nodes) {
        List<String> names = new ArrayList<>();
        nodes.forEach(n -> names.add(n.at("/metadata/name").asText()));
        return names.stream().sorted().toList();
    }
}
