package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Kcat;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 13 through all five services: monitoring's alerts take nodes out of service (their machines to maintenance) or
 * reboot them within the pool's repair budget, a flapping alert ends its node's reboots, a pool that disabled
 * unhealthy-node eviction keeps its nodes cordoned, and a node deleted through REST is replaced. Each pool's events are
 * read in the order the services recorded them ({@code nodepool-event-recorded}).
 */
@StackUse.Shares
@ResourceLock("NodeHealthIT.kafka")
class NodeHealthIT {

    static final String CENTRAL = "US-CENTRAL-07A";
    static final Duration WAIT = Duration.ofSeconds(90);
    static TopicProbe kafka;

    @BeforeAll
    static void connect() {
        kafka = new TopicProbe(SystemStack.get().bootstrapServers());
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    static OnePool pool(String name, String zone, String type, int machines, int target, String lifecycle) {
        OnePool pool = OnePool.in(name, zone, type, machines);
        var created = pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":%d%s}}""".formatted(
                        name, type, zone, target, lifecycle == null ? "" : ",\"lifecycle\":" + lifecycle));
        assertThat(created.code()).as("create answered %s", created.body()).isEqualTo(201);
        awaitTargetMet(pool, target);
        return pool;
    }

    static void awaitTargetMet(OnePool pool, int nodes) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Api.Answer answer = pool.get();
            assertThat(answer.number("/status/currentNodes"))
                    .as("currentNodes of %s", answer.body())
                    .isEqualTo(nodes);
            assertThat(SpineIT.reason(answer, "AtTarget")).isEqualTo("TargetMet/True");
        });
    }

    static List<String> names(OnePool pool) {
        return pool.nodes().stream().map(n -> n.at("/metadata/name").asText()).toList();
    }

    static JsonNode node(OnePool pool, String name) {
        return pool.nodes().stream()
                .filter(n -> n.at("/metadata/name").asText().equals(name))
                .findFirst()
                .orElse(null);
    }

    static String condition(JsonNode node, String type) {
        for (JsonNode c : node.at("/status/conditions")) {
            if (c.path("type").asText().equals(type)) {
                return c.path("status").asText() + "/" + c.path("reason").asText();
            }
        }
        return null;
    }

    /** An operator raises or resolves an alert through the provisioner's admin API. */
    static void alert(OnePool pool, String node, String alert, boolean raised) {
        var answer = SystemStack.admin(Service.PROVISIONER).post("/admin/node-alerts", """
        {"type":"%s","subject":"demo/%s","data":{"node":"%s","alert":"%s","details":"seen by dcgm-exporter"}}""".formatted(
                        raised ? "NodeAlertRaised" : "NodeAlertResolved", pool.name, node, alert));
        assertThat(answer.code()).as("alert answered %s", answer.body()).isEqualTo(202);
    }

    static void busy(OnePool pool, String node, int graceSeconds) {
        assertThat(pool.demo
                        .put(
                                pool.path() + "/nodes/" + node + "/activity",
                                "{\"active\": true, " + "\"terminationGracePeriodSeconds\": " + graceSeconds + "}")
                        .code())
                .isEqualTo(202);
    }

    /** The pool's events as the services recorded them, in order. */
    static List<RecordedEvent> events(OnePool pool) {
        return kafka.readAll(Topics.NODEPOOL_EVENT_RECORDED.name()).stream()
                .filter(r -> ("demo/" + pool.name).equals(r.key()))
                .flatMap(r -> Json.read(r.value(), RecordedEvents.class).events().stream())
                .toList();
    }

    /** The reasons of the events about {@code node}, and of the pool events that name it, in order. */
    static List<String> nodeStory(OnePool pool, String node) {
        return events(pool).stream()
                .filter(e ->
                        e.involvedObject().name().equals(node) || e.message().contains(node))
                .map(RecordedEvent::reason)
                .toList();
    }

    static String machineStatus(String zone, String type, String machine) {
        for (JsonNode m : SystemStack.admin(Service.CAPACITY)
                .get("/admin/fleet/" + zone + "/" + type)
                .body()
                .path("machines")) {
            if (m.path("name").asText().equals(machine)) {
                return m.path("status").asText();
            }
        }
        return null;
    }

    @Test
    void anXid79OnABusyNodeCordonsDrainsRemovesAndReplacesItAndItsMachineGoesToMaintenance() {
        String type = "gd-8xb200ib-i128";
        OnePool pool = pool("xid79-pool", CENTRAL, type, 5, 4, null);
        List<String> before = names(pool);
        String bad = before.get(1);
        busy(pool, bad, 2);

        alert(pool, bad, "GPUFallenOffBus", true);

        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(names(pool))
                        .as("nodes; %s's events: %s", bad, nodeStory(pool, bad))
                        .doesNotContain(bad)
                        .hasSize(4));
        awaitTargetMet(pool, 4);
        assertThat(machineStatus(CENTRAL, type, bad)).isEqualTo("MAINTENANCE");
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(nodeStory(pool, bad))
                        .containsSubsequence(
                                "CWNodeRegistered",
                                "CWNodeCordoned",
                                "CWNodeTainted",
                                "CWNodeDraining",
                                "CWNodeDrainingForceDelete",
                                "CWNodeMarkedPrepareForTerminate",
                                "CWNodePreparedForTerminate",
                                "CWNodeDeleted"));
        String replacement = names(pool).stream()
                .filter(n -> !before.contains(n))
                .findFirst()
                .orElseThrow();
        List<String> reasons = events(pool).stream().map(RecordedEvent::reason).toList();
        assertThat(reasons.subList(reasons.lastIndexOf("CWNodePreparedForTerminate"), reasons.size()))
                .containsSubsequence("CWNodeDeleted", "CWNodeAssigned", "CWNodeRegistered");
        assertThat(nodeStory(pool, replacement)).containsSubsequence("CWNodeAssigned", "CWNodeRegistered");
    }

    @Test
    void anAlertStormOnFiveOfTenNodesKeepsAtMostTwoInRemediationWhileTheRestWait() throws Exception {
        Kcat kcat = Kcat.require();
        OnePool pool = pool("storm-pool", "EU-SOUTH-04A", "gd-8xh200ib-i128", 10, 10, null);
        List<String> struck = names(pool).subList(0, 5);

        // Monitoring publishes as its own principal with its own client (librdkafka hashes keys unlike Java): any
        // partition will do.
        StringBuilder lines = new StringBuilder();
        for (String node : struck) {
            lines.append("demo/storm-pool|")
                    .append(Json.string(Map.of(
                            "specversion",
                            "1.0",
                            "id",
                            "storm-" + node,
                            "source",
                            "monitoring/dcgm",
                            "type",
                            "NodeAlertRaised",
                            "subject",
                            "demo/storm-pool",
                            "time",
                            Instant.now().toString(),
                            "data",
                            Map.of("node", node, "alert", "GPUTimeoutError"))))
                    .append('\n');
        }
        publishWithKcat(kcat, Topics.NODE_ALERT_RAISED.name(), lines.toString());

        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(events(pool).stream()
                                .filter(e -> e.reason().equals("CWNodeUntainted"))
                                .map(e -> e.involvedObject().name())
                                .distinct())
                        .containsExactlyInAnyOrderElementsOf(struck));
        int most = 0;
        int waitingWhileFull = 0;
        Map<String, Node> nodes = new TreeMap<>();
        for (NodeFact fact : facts(pool)) {
            if (fact instanceof NodeFact.AboutNode about) {
                nodes.put(about.node().name(), about.node());
                long out = nodes.values().stream().filter(NodeHealthIT::tainted).count();
                long alerting = nodes.values().stream()
                        .filter(n -> "True".equals(status(n, "GPUProblem")))
                        .count();
                most = Math.max(most, (int) out);
                if (out == 2) {
                    waitingWhileFull = Math.max(waitingWhileFull, (int) (alerting - out));
                }
            }
        }
        assertThat(most).as("nodes in remediation at once").isEqualTo(2);
        assertThat(waitingWhileFull)
                .as("alerting nodes that waited while two were out")
                .isGreaterThanOrEqualTo(1);
        awaitTargetMet(pool, 10);
        assertThat(names(pool)).containsAll(struck);
    }

    static void publishWithKcat(Kcat kcat, String topic, String lines) {
        Kcat.Result result = kcat.run(
                List.of("-F", SystemStack.get().kcatConfig("monitoring").toString(), "-P", "-t", topic, "-K", "|"),
                lines);
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    static List<NodeFact> facts(OnePool pool) {
        return kafka.readAll(Topics.NODEPOOL_NODES_CHANGED.name()).stream()
                .filter(r -> ("demo/" + pool.name).equals(r.key()))
                .map(r -> Json.read(r.value(), NodeFact.class))
                .toList();
    }

    static boolean tainted(Node node) {
        return node.spec().taints() != null
                && node.spec().taints().stream().anyMatch(t -> t.key().equals(Node.TAINT_UNHEALTHY));
    }

    static String status(Node node, String type) {
        return node.status().conditions().stream()
                .filter(c -> c.type().equals(type))
                .map(c -> c.status())
                .findFirst()
                .orElse(null);
    }

    @Test
    void aRebootAlertThatFlapsTakesItsNodeOutOfServiceInsteadOfRebootingItAgain() {
        String type = "cd-gp-i64-erapids";
        OnePool pool = pool("flapping-pool", CENTRAL, type, 6, 2, null);
        String flapper = names(pool).get(0);

        for (int reboot = 1; reboot <= 2; reboot++) {
            alert(pool, flapper, "GPUTimeoutError", true);
            int rebooted = reboot;
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(nodeStory(pool, flapper))
                            .filteredOn("CWNodeUntainted"::equals)
                            .hasSize(rebooted));
            alert(pool, flapper, "GPUTimeoutError", false);
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(condition(node(pool, flapper), "GPUProblem"))
                            .isEqualTo("False/NoActiveAlert"));
        }
        alert(pool, flapper, "GPUTimeoutError", true);

        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(names(pool))
                        .as("nodes; %s's events: %s", flapper, nodeStory(pool, flapper))
                        .doesNotContain(flapper)
                        .hasSize(2));
        awaitTargetMet(pool, 2);
        assertThat(facts(pool))
                .filteredOn(NodeFact.NodeRemoved.class::isInstance)
                .extracting(f -> ((NodeFact.NodeRemoved) f).node().name(), f -> ((NodeFact.NodeRemoved) f).cause())
                .contains(tuple(flapper, "Triaged"));
        assertThat(machineStatus(CENTRAL, type, flapper)).isEqualTo("MAINTENANCE");
        assertThat(nodeStory(pool, flapper))
                .filteredOn("CWNodeUncordoned"::equals)
                .hasSize(2);
    }

    @Test
    void withUnhealthyNodeEvictionDisabledTheNodeIsCordonedAndMarkedNeverRemoved() {
        OnePool pool = pool("held-pool", CENTRAL, "cd-gp-i64-erapids", 6, 1, "{\"disableUnhealthyNodeEviction\":true}");
        String sick = names(pool).get(0);

        alert(pool, sick, "GPUFallenOffBus", true);

        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode node = node(pool, sick);
            assertThat(node.at("/spec/unschedulable").asBoolean()).isTrue();
            assertThat(node.at("/spec/taints").toString()).contains(Node.TAINT_UNHEALTHY, "GPUFallenOffBus");
            assertThat(condition(node, "GPUProblem")).isEqualTo("True/GPUFallenOffBus");
        });
        // Longer than a drain, a preparation for termination and a removal would take on this stack.
        await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(names(pool)).containsExactly(sick);
            assertThat(nodeStory(pool, sick))
                    .containsSubsequence("CWNodeCordoned", "CWNodeTainted")
                    .doesNotContain("CWNodeDraining", "CWNodeMarkedPrepareForTerminate", "CWNodeDeleted");
        });

        alert(pool, sick, "GPUFallenOffBus", false);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(node(pool, sick).at("/spec/unschedulable").asBoolean()).isFalse();
            assertThat(nodeStory(pool, sick)).containsSubsequence("CWNodeUncordoned", "CWNodeUntainted");
        });
    }

    @Test
    void withMoreNodesUnhealthyThanMaxUnhealthyRepairStopsUntilEnoughRecover(@TempDir Path dir) {
        OnePool pool = pool("limited-repair", "US-WEST-04A", "cd-gp-a192-genoa", 4, 4, "{\"maxUnhealthy\":\"1\"}");
        List<String> nodes = names(pool);
        String first = nodes.get(0);
        String second = nodes.get(1);
        // The first node's drain takes its workload's grace period: it is unhealthy until its reboot is done.
        busy(pool, first, 20);

        // One unhealthy node of four is within the limit: it is repaired; a second is one too many.
        alert(pool, first, "GPUTimeoutError", true);
        alert(pool, second, "GPUTimeoutError", true);

        String blocked = "Node repair blocked: 2 of 4 nodes unhealthy, more than maxUnhealthy \"1\"; 1 node(s) wait,"
                + " and repair resumes when 1 or fewer are unhealthy.";
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(pool.get().body().at("/status/disruption/blocked").findValuesAsText("message"))
                    .containsExactly(blocked);
        });
        assertThat(node(pool, first).at("/spec/unschedulable").asBoolean())
                .as("the first is being repaired")
                .isTrue();
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(node(pool, second).at("/spec/unschedulable").asBoolean())
                    .as("the second is left serving")
                    .isFalse();
            assertThat(condition(node(pool, second), "GPUProblem")).isEqualTo("True/GPUTimeoutError");
        });
        var stack = SystemStack.get();
        String described = Kubectl.of(stack.apiHttpsUrl(), stack.apiTls().pem(), "demo-token", dir)
                .run("describe", "nodepools", pool.name)
                .ok()
                .out();
        assertThat(described).contains("NodeRepairBlocked", "Node repair blocked: 2 of 4 nodes unhealthy");

        // The first node's reboot clears its alert: one unhealthy again, so the second's repair starts by itself.
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(nodeStory(pool, first)).contains("CWNodeUntainted");
            assertThat(nodeStory(pool, second)).containsSubsequence("CWNodeCordoned", "CWNodeTainted");
            assertThat(pool.get().body().at("/status/disruption/blocked").findValuesAsText("message"))
                    .noneMatch(m -> m.startsWith("Node repair blocked"));
        });
        awaitTargetMet(pool, 4);
    }

    @Test
    void aDpuRouteCountMismatchRestartsTheDpuComponentWhileTheNodeStaysInService() {
        OnePool pool = pool("dpu-pool", CENTRAL, "cd-gp-i64-erapids", 6, 1, null);
        String node = names(pool).get(0);

        alert(pool, node, "DPURouteCountMismatch", true);

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(nodeStory(pool, node)).containsSubsequence("DPUComponentRestarting", "DPUComponentRestarted");
            assertThat(condition(node(pool, node), "DPUProblem")).isEqualTo("False/NoActiveAlert");
        });
        JsonNode after = node(pool, node);
        assertThat(after.at("/spec/unschedulable").asBoolean()).isFalse();
        assertThat(after.at("/spec/taints").toString()).doesNotContain(Node.TAINT_UNHEALTHY);
        assertThat(condition(after, "Ready")).startsWith("True/");
        assertThat(nodeStory(pool, node))
                .as("the host stays in service: no cordon, drain or reboot")
                .doesNotContain("CWNodeCordoned", "CWNodeDraining", "CWReconfigureRebooted", "CWDrainNode");
    }

    @Test
    void aNodeDeletedThroughRestIsDrainedRemovedAndReplacedSoThePoolStaysAtTarget() {
        String type = "gb200-4x";
        OnePool pool = pool("replaced-pool", CENTRAL, type, 3, 2, null);
        String deleted = names(pool).get(0);
        Set<String> before = new TreeSet<>(names(pool));

        var answer = pool.demo.delete(pool.path() + "/nodes/" + deleted);
        assertThat(answer.code()).as("delete answered %s", answer.body()).isEqualTo(202);
        assertThat(answer.text("/metadata/name")).isEqualTo(deleted);

        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(names(pool))
                        .as("nodes; %s's events: %s", deleted, nodeStory(pool, deleted))
                        .doesNotContain(deleted)
                        .hasSize(2));
        awaitTargetMet(pool, 2);
        List<String> after = new ArrayList<>(names(pool));
        after.removeAll(before);
        assertThat(after).as("the replacement is another machine").hasSize(1);
        assertThat(machineStatus(CENTRAL, type, deleted))
                .as("a deleted node's machine is not out of service")
                .isEqualTo("FREE");
        assertThat(nodeStory(pool, deleted))
                .containsSubsequence(
                        "CWNodeDeletionRequestSuccess",
                        "CWNodeCordoned",
                        "CWNodeDraining",
                        "CWNodeMarkedPrepareForTerminate",
                        "CWNodePreparedForTerminate",
                        "CWNodeDeleted");
        assertThat(events(pool).stream()
                        .filter(e -> e.message().contains(deleted))
                        .map(RecordedEvent::reason))
                .as("the pool says it drained and removed the node")
                .containsSubsequence("CWDrainNode", "CWNodePoolNodesRemoved");
        assertThat(pool.get().number("/spec/targetNodes"))
                .as("the pool did not shrink")
                .isEqualTo(2);
    }
}
