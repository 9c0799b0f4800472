package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code autoscaling: true} through all five services: the provisioner's autoscaler asks the api-service for another
 * node when every node is busy and for fewer when nodes stay idle, within {@code [minNodes, maxNodes]}; quota, capacity
 * and the provisioner then act on the new {@code targetNodes} as on anyone's (the stack runs the autoscaler with 2 s to
 * grow and 5 s idle to shrink).
 */
@StackUse.Shares
@ResourceLock("demo-autoscaling")
class AutoscalingIT {

    static final String ZONE = "US-EAST-08A";
    static final String TYPE = "cd-gp-i64-erapids";
    static final Duration WAIT = Duration.ofSeconds(60);
    static OnePool pool;

    @BeforeAll
    static void demoData() {
        pool = OnePool.in("autoscaled-pool", ZONE, TYPE, 4);
    }

    static void report(String node, boolean active) {
        assertThat(pool.demo
                        .put(pool.path() + "/nodes/" + node + "/activity", "{\"active\": " + active + "}")
                        .code())
                .isEqualTo(202);
    }

    static void awaitAtTarget(int nodes) {
        await().atMost(WAIT).untilAsserted(() -> {
            Api.Answer answer = pool.get();
            assertThat(answer.number("/spec/targetNodes")).isEqualTo(nodes);
            assertThat(answer.number("/status/currentNodes")).isEqualTo(nodes);
            assertThat(answer.condition("AtTarget").path("reason").asText()).isEqualTo("TargetMet");
        });
    }

    @Test
    void aBusyPoolGrowsByOneNodeAndShrinksBackToMinNodesOnceItsNodesStayIdle() {
        var created = pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","autoscaling":true,"minNodes":1,"maxNodes":2,"targetNodes":1}}""".formatted(pool.name, TYPE, ZONE));
        assertThat(created.code()).as("create answered %s", created.body()).isEqualTo(201);
        awaitAtTarget(1);

        report(pool.nodes().get(0).at("/metadata/name").asText(), true);

        awaitAtTarget(2);
        assertThat(pool.get().number("/metadata/generation")).isEqualTo(2);
        assertThat(pool.events("TriggeredScaleUp"))
                .singleElement()
                .asString()
                .contains("all 1 node(s) busy", "targetNodes 1 -> 2");

        // At maxNodes nothing more is asked; once both nodes are idle long enough the pool goes back to minNodes.
        pool.nodes().forEach(node -> report(node.at("/metadata/name").asText(), false));
        awaitAtTarget(1);
        assertThat(pool.events("ScaleDown")).singleElement().asString().contains("targetNodes 2 -> 1", "minNodes 1");
        assertThat(pool.events("TriggeredScaleUp")).hasSize(1);
    }
}
