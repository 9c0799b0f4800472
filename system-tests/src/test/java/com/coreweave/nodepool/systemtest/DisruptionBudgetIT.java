package com.coreweave.nodepool.systemtest;

import static com.coreweave.nodepool.systemtest.NodeHealthIT.WAIT;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.alert;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.awaitTargetMet;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.busy;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.events;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.facts;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.names;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.node;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.nodeStory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 29 through all five services: a pool's disruption budget holds health remediation to one node out of service at
 * a time, counting a removed node until its replacement is Ready, and an Xid 79 cordons its node at once while its
 * drain waits for the budget. Serving nodes are sampled, not assumed: through REST while it happens, and from every
 * node fact the provisioner wrote.
 */
@StackUse.Shares
@ResourceLock("US-CENTRAL-07A/gd-8xa100-i128")
@ResourceLock("NodeHealthIT.kafka")
class DisruptionBudgetIT {

    static final String ZONE = "US-CENTRAL-07A";

    @BeforeAll
    static void connect() {
        NodeHealthIT.kafka = new TopicProbe(SystemStack.get().bootstrapServers());
    }

    @AfterAll
    static void close() {
        NodeHealthIT.kafka.close();
    }

    static OnePool pool(String name, String type, int machines, int target, String budgets) {
        return pool(name, ZONE, type, machines, target, budgets);
    }

    static OnePool pool(String name, String zone, String type, int machines, int target, String budgets) {
        OnePool pool = OnePool.in(name, zone, type, machines);
        var created = pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":%d,"disruption":{"budgets":%s}}}""".formatted(name, type, zone, target, budgets));
        assertThat(created.code()).as("create answered %s", created.body()).isEqualTo(201);
        awaitTargetMet(pool, target);
        return pool;
    }

    /** A node a workload can be scheduled on, as kubectl shows it: Ready and not cordoned. */
    static boolean serving(JsonNode node) {
        return !node.at("/spec/unschedulable").asBoolean() && "True/Ready".equals(readyOf(node));
    }

    static String readyOf(JsonNode node) {
        for (JsonNode c : node.at("/status/conditions")) {
            if (c.path("type").asText().equals(Node.CONDITION_READY)) {
                return c.path("status").asText() + "/" + c.path("type").asText();
            }
        }
        return null;
    }

    @Test
    void aBudgetOfOneWithThreeTriageAlertsNeverLeavesFewerThanFourOfFiveNodesServing() throws Exception {
        // Triaged machines go to maintenance: three spares for the replacements.
        OnePool pool = pool("budget-pool", "gd-8xl40s-i128", 8, 5, "[{\"nodes\":\"1\",\"reasons\":[\"Unhealthy\"]}]");
        List<String> struck = names(pool).subList(0, 3);
        for (String node : names(pool)) {
            busy(pool, node, 2);
        }
        ServingSampler sampler = ServingSampler.of(pool);
        for (String node : struck) {
            alert(pool, node, "DCGMSRAMThresholdExceeded", true);
        }

        try (sampler) {
            await().atMost(WAIT.multipliedBy(2))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(names(pool))
                            .as(
                                    "nodes; events: %s",
                                    events(pool).stream()
                                            .map(RecordedEvent::reason)
                                            .toList())
                            .doesNotContainAnyElementsOf(struck)
                            .hasSize(5));
            awaitTargetMet(pool, 5);
        }

        assertThat(sampler.samples()).as("REST samples").isGreaterThan(20);
        assertThat(sampler.fewest()).as("serving nodes seen through REST").isEqualTo(4);
        assertThat(fewestServingInTheFacts(pool))
                .as("serving nodes after each node fact")
                .isEqualTo(4);
        assertThat(events(pool))
                .filteredOn(e -> e.reason().equals("DisruptionBlocked"))
                .extracting(RecordedEvent::message)
                .contains("2 node(s) to be drained for a node alert wait for the disruption budget: budget nodes \"1\""
                        + " allows no more now, 1 out of service.");
    }

    /** The fewest serving nodes the pool had after any node fact once it first had five. */
    static int fewestServingInTheFacts(OnePool pool) {
        Map<String, Node> nodes = new TreeMap<>();
        int fewest = Integer.MAX_VALUE;
        boolean atTarget = false;
        for (NodeFact fact : facts(pool)) {
            if (fact instanceof NodeFact.NodeRemoved removed) {
                nodes.remove(removed.node().name());
            } else if (fact instanceof NodeFact.AboutNode about) {
                nodes.put(about.node().name(), about.node());
            } else {
                continue;
            }
            int serving = (int) nodes.values().stream()
                    .filter(n -> n.phase() == Node.Phase.Registered && !n.spec().unschedulable())
                    .count();
            atTarget |= serving == 5;
            if (atTarget) {
                fewest = Math.min(fewest, serving);
            }
        }
        return fewest;
    }

    @Test
    void anXid79NodeIsDrainedAtOnceWhileAnotherNodesRebootHoldsTheBudget() {
        OnePool pool = pool("xid79-budget-pool", "gd-8xa100-i128", 6, 5, "[{\"nodes\":\"1\"}]");
        String rebooting = names(pool).get(0);
        String fallen = names(pool).get(1);
        busy(pool, rebooting, 8);
        busy(pool, fallen, 8);
        alert(pool, rebooting, "GPUTimeoutError", true);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(nodeStory(pool, rebooting)).contains("CWNodeDraining"));

        alert(pool, fallen, "GPUFallenOffBus", true);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode node = node(pool, fallen);
            assertThat(node.at("/spec/unschedulable").asBoolean()).isTrue();
            assertThat(node.at("/spec/taints").toString()).contains(Node.TAINT_UNHEALTHY, "GPUFallenOffBus");
            assertThat(nodeStory(pool, fallen))
                    .as("fatal hardware is involuntary: drained while %s still reboots", rebooting)
                    .containsSubsequence("CWNodeCordoned", "CWNodeTainted", "CWNodeDraining");
        });

        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> assertThat(names(pool)).doesNotContain(fallen).hasSize(5));
        assertThat(nodeStory(pool, fallen))
                .containsSubsequence("CWNodeCordoned", "CWNodeTainted", "CWNodeDraining", "CWNodeDeleted");
        assertThat(events(pool).stream().map(RecordedEvent::reason))
                .as("the pool says it drained and removed the node")
                .contains("CWDrainNode", "CWNodePoolNodesRemoved");
        awaitTargetMet(pool, 5);
    }

    @Test
    void underABudgetOfNoneFatalHardwareStillLeavesAtOnceAndAThrottledNodesJobIsInterrupted() {
        OnePool pool = pool("budget-none-pool", "US-EAST-08A", "gd-8xb200ib-i128", 6, 3, "[{\"nodes\":\"0\"}]");
        String remapped = names(pool).get(0);
        String throttled = names(pool).get(1);
        String rebooting = names(pool).get(2);
        busy(pool, remapped, 8);
        busy(pool, throttled, 600);
        busy(pool, rebooting, 8);

        alert(pool, rebooting, "GPUTimeoutError", true);
        alert(pool, remapped, "GPUPRowRemapFailure", true);
        alert(pool, throttled, "NodeCPUHZThrottleLong", true);

        // Xid 64 and the long throttle are taken out of service whatever the budget; the throttled node's job is
        // interrupted at once, not given its ten minutes.
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            assertThat(names(pool))
                    .as("removed and replaced")
                    .doesNotContain(remapped, throttled)
                    .hasSize(3);
            assertThat(nodeStory(pool, remapped))
                    .containsSubsequence("CWNodeCordoned", "CWNodeTainted", "CWNodeDraining", "CWNodeDeleted");
            assertThat(nodeStory(pool, throttled))
                    .containsSubsequence("CWNodeCordoned", "CWNodeDrainingForceDelete", "CWNodeDeleted");
        });
        assertThat(node(pool, rebooting).at("/spec/unschedulable").asBoolean())
                .as("a reboot is voluntary: held by nodes \"0\"")
                .isFalse();
        assertThat(nodeStory(pool, rebooting)).doesNotContain("CWNodeCordoned");
        assertThat(events(pool))
                .filteredOn(e -> e.reason().equals("DisruptionBlocked"))
                .extracting(RecordedEvent::message)
                .anyMatch(m -> m.startsWith("1 node(s) to be drained for a node alert wait for the disruption budget:"
                        + " budget nodes \"0\""));
        alert(pool, rebooting, "GPUTimeoutError", false);
        awaitTargetMet(pool, 3);
    }
}
