package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.testing.TopicProbe;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 5's crash test: the provisioner killed with -9 in the middle of a scale-up picks up where it was — exact
 * counts, every grant turned into exactly one node, no node leaked, boot timers not restarted from zero.
 */
@StackUse.Disrupts
class ProvisionerCrashIT {

    static final String ZONE = "US-EAST-04A";
    static final String TYPE = "cd-gp-a192-genoa";
    static TopicProbe kafka;
    static Api demo;

    @BeforeAll
    static void demoData() {
        kafka = new TopicProbe(SystemStack.forDisruption().bootstrapServers());
        demo = SystemStack.api(SystemStack.forDisruption(), "demo-token");
        SystemStack.quota(SystemStack.forDisruption(), "demo", ZONE, TYPE, 32);
        SystemStack.fleet(SystemStack.forDisruption(), ZONE, TYPE, 48);
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    static List<NodeFact> nodeFacts(List<TopicProbe.Read> records, String key) {
        return records.stream()
                .filter(r -> key.equals(r.key()) && r.value() != null)
                .map(r -> Json.read(r.value(), NodeFact.class))
                .toList();
    }

    @Test
    void aProvisionerKilledMidScaleUpEndsWithExactlyTheTargetAndNoDuplicateNode() {
        String key = "demo/crash-scale-up";
        assertThat(demo.post(Api.POOLS, Api.pool("crash-scale-up", TYPE, 8)).code())
                .isEqualTo(201);

        // Kill as soon as nodes are assigned: they are booting (2 s), none registered yet.
        kafka.readUntil(
                Topics.NODEPOOL_NODES_CHANGED.name(),
                records -> nodeFacts(records, key).stream().anyMatch(f -> f instanceof NodeFact.NodeAssigned),
                Duration.ofSeconds(60));
        SystemStack.forDisruption().kill9(Service.PROVISIONER);
        long registeredBeforeTheCrash = nodeFacts(kafka.readAll(Topics.NODEPOOL_NODES_CHANGED.name()), key).stream()
                .filter(f -> f instanceof NodeFact.NodeRegistered)
                .count();
        assertThat(registeredBeforeTheCrash)
                .as("the crash came in the middle of the scale-up")
                .isLessThan(8);
        SystemStack.forDisruption().restart(Service.PROVISIONER);

        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> SpineIT.assertHealthy(demo.get(Api.POOLS + "/crash-scale-up"), 8));

        List<NodeFact> facts = nodeFacts(
                kafka.readUntil(
                        Topics.NODEPOOL_NODES_CHANGED.name(),
                        records -> nodeFacts(records, key).stream()
                                        .filter(f -> f instanceof NodeFact.NodeRegistered)
                                        .count()
                                >= 8,
                        Duration.ofSeconds(30)),
                key);
        Map<Grant, Integer> assignments = new HashMap<>();
        facts.stream()
                .filter(f -> f instanceof NodeFact.NodeAssigned)
                .map(f -> ((NodeFact.NodeAssigned) f).grant())
                .forEach(g -> assignments.merge(g, 1, Integer::sum));
        assertThat(assignments)
                .as("every grant assigned exactly once")
                .hasSize(8)
                .allSatisfy((g, n) -> assertThat(n).isEqualTo(1));
        assertThat(facts).as("no node leaked or removed").noneMatch(f -> f instanceof NodeFact.NodeRemoved);
        Set<String> registered = new HashSet<>();
        for (NodeFact fact : facts) {
            if (fact instanceof NodeFact.NodeRegistered r) {
                assertThat(registered.add(r.node().name()))
                        .as("%s registered once", r.node().name())
                        .isTrue();
                NodeFact.NodeAssigned assigned = (NodeFact.NodeAssigned) facts.stream()
                        .filter(f -> f instanceof NodeFact.NodeAssigned a
                                && a.node().name().equals(r.node().name()))
                        .findFirst()
                        .orElseThrow();
                assertThat(r.at())
                        .as("booted for the full boot time")
                        .isAfterOrEqualTo(assigned.at().plusSeconds(2));
            }
        }

        CapacityChecked capacity = kafka.readAll(Topics.CAPACITY_CHECKED.name()).stream()
                .filter(r -> key.equals(r.key()))
                .reduce((a, b) -> b)
                .map(r -> Json.read(r.value(), CapacityChecked.class))
                .orElseThrow();
        Set<String> nodes = new HashSet<>();
        demo.get(Api.POOLS + "/crash-scale-up/nodes")
                .body()
                .path("items")
                .forEach(n -> nodes.add(n.path("metadata").path("name").asText()));
        assertThat(nodes)
                .as("the nodes are exactly the machines granted")
                .isEqualTo(new HashSet<>(
                        capacity.grants().stream().map(Grant::machine).toList()));
    }
}
