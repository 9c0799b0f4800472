package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 6 end to end, with the reference's timeline in seconds (warning 3 s, removal deadline 12 s, grace 2 s):
 * reserved demand takes capacity back from a spot pool through the three-phase timeline, a fully preempted spot pool
 * waits at zero nodes and scales back by itself when the fleet grows, and a preemption-service killed mid-timeline
 * keeps every node's schedule.
 */
@StackUse.Disrupts
class SpotPreemptionIT {

    static final String ZONE = "US-EAST-04A";
    static TopicProbe kafka;
    static Api demo;
    static Api other;

    @BeforeAll
    static void setUp() {
        kafka = new TopicProbe(SystemStack.forDisruption().bootstrapServers());
        demo = SystemStack.api(SystemStack.forDisruption(), "demo-token");
        other = SystemStack.api(SystemStack.forDisruption(), "other-token");
    }

    @AfterAll
    static void close() {
        kafka.close();
    }

    static String spotPool(String name, String type, int target) {
        return Api.pool(name, type, target).replace("\"instanceType\"", "\"computeClass\":\"spot\",\"instanceType\"");
    }

    static List<PreemptionFact> preemptions(List<TopicProbe.Read> records, String key) {
        return records.stream()
                .filter(r -> key.equals(r.key()))
                .map(r -> Json.read(r.value(), PreemptionFact.class))
                .toList();
    }

    static List<PreemptionFact> awaitPreemptions(String key, int removed, Duration timeout) {
        return preemptions(
                kafka.readUntil(
                        Topics.SPOT_PREEMPTION_PROGRESSED.name(),
                        records -> preemptions(records, key).stream()
                                        .filter(f -> f instanceof PreemptionFact.NodePreempted)
                                        .count()
                                >= removed,
                        timeout),
                key);
    }

    static void activity(String pool, String node, boolean active, Integer grace) {
        String body = grace == null
                ? "{\"active\": " + active + "}"
                : "{\"active\": " + active + ", \"terminationGracePeriodSeconds\": " + grace + "}";
        assertThat(demo.put(Api.POOLS + "/" + pool + "/nodes/" + node + "/activity", body)
                        .code())
                .isEqualTo(202);
    }

    static List<String> nodeNames(Api api, String pool) {
        List<String> names = new ArrayList<>();
        api.get(Api.POOLS + "/" + pool + "/nodes")
                .body()
                .path("items")
                .forEach(n -> names.add(n.path("metadata").path("name").asText()));
        return names;
    }

    /** Each node's facts are Pending, then InProgress at T+warning, then Preempted, each exactly once. */
    static void assertTimelines(List<PreemptionFact> facts) {
        Map<String, List<PreemptionFact>> byNode = facts.stream().collect(Collectors.groupingBy(PreemptionFact::node));
        byNode.forEach((node, steps) -> {
            assertThat(steps).as("timeline of %s", node).hasSize(3);
            var pending = (PreemptionFact.PreemptionPending) steps.get(0);
            var drain = (PreemptionFact.PreemptionInProgress) steps.get(1);
            var removed = (PreemptionFact.NodePreempted) steps.get(2);
            assertThat(pending.drainAt()).isEqualTo(pending.pendingAt().plusSeconds(3));
            assertThat(pending.removeBy()).isEqualTo(pending.pendingAt().plusSeconds(12));
            assertThat(drain.evictedAt()).isAfterOrEqualTo(pending.drainAt());
            assertThat(removed.removedAt()).isAfterOrEqualTo(drain.evictedAt());
            assertThat(removed.pendingAt()).isEqualTo(pending.pendingAt());
        });
    }

    @Test
    void reservedDemandTakesSpotCapacityThroughTheTimelineAndAFullyPreemptedPoolScalesBack() {
        String type = "gd-8xl40s-i128";
        SystemStack.quota(SystemStack.forDisruption(), "demo", ZONE, type, 8);
        SystemStack.quota(SystemStack.forDisruption(), "other", ZONE, type, 8);
        SystemStack.fleet(SystemStack.forDisruption(), ZONE, type, 4);

        assertThat(demo.post(Api.POOLS, spotPool("spot-pool", type, 4)).code()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> SpineIT.assertHealthy(demo.get(Api.POOLS + "/spot-pool"), 4));
        // Every spot node runs work with a long grace period: only the deadline or the work finishing ends a drain.
        nodeNames(demo, "spot-pool").forEach(node -> activity("spot-pool", node, true, 600));

        assertThat(other.post(Api.POOLS, Api.pool("reserved-pool", type, 2)).code())
                .isEqualTo(201);
        var pending = preemptions(
                kafka.readUntil(
                        Topics.SPOT_PREEMPTION_PROGRESSED.name(),
                        records -> preemptions(records, "demo/spot-pool").stream()
                                        .filter(f -> f instanceof PreemptionFact.PreemptionInProgress)
                                        .count()
                                >= 2,
                        Duration.ofSeconds(60)),
                "demo/spot-pool");
        List<String> reclaimed =
                pending.stream().map(PreemptionFact::node).distinct().toList();
        assertThat(reclaimed)
                .as("exactly the two nodes the reserved pool needs")
                .hasSize(2);

        // While draining, the nodes carry the reference's labels and are cordoned.
        JsonNode draining = nodeOf("spot-pool", reclaimed.get(0));
        assertThat(draining.at("/metadata/labels")
                        .path(Node.LABEL_PENDING_PREEMPTION)
                        .asText())
                .isEqualTo("true");
        assertThat(draining.at("/metadata/labels").path(Node.LABEL_EVICTED_AT).asText())
                .matches("\\d+");
        assertThat(draining.at("/spec/unschedulable").asBoolean()).isTrue();

        // The first node's work finishes early: it is removed at once; the other waits for the T+12 s deadline.
        activity("spot-pool", reclaimed.get(0), false, null);
        List<PreemptionFact> facts = awaitPreemptions("demo/spot-pool", 2, Duration.ofSeconds(60));
        assertTimelines(facts);
        var early = removal(facts, reclaimed.get(0));
        var late = removal(facts, reclaimed.get(1));
        assertThat(early.cause()).isEqualTo("Drained");
        assertThat(early.removedAt()).isBefore(early.pendingAt().plusSeconds(12));
        assertThat(late.cause()).isEqualTo("Deadline");

        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    SpineIT.assertHealthy(other.get(Api.POOLS + "/reserved-pool"), 2);
                    var spot = demo.get(Api.POOLS + "/spot-pool");
                    assertThat(spot.number("/status/currentNodes")).isEqualTo(2);
                    assertThat(SpineIT.reason(spot, "AtTarget")).isEqualTo("UnderTarget/False");
                    assertThat(SpineIT.reason(spot, "Capacity")).isEqualTo("QueuedAwaitingCapacity/False");
                });
        List<String> warnings = new ArrayList<>();
        demo.get(Api.POOLS + "/spot-pool/events").body().path("items").forEach(e -> {
            if ("Warning".equals(e.path("type").asText())) {
                warnings.add(e.path("reason").asText());
            }
        });
        assertThat(warnings).contains("Preemption pending", "Preemption in progress", "Deleted for preemption");

        // Reserved demand takes the rest: the spot pool is fully preempted and waits at zero nodes.
        nodeNames(demo, "spot-pool").forEach(node -> activity("spot-pool", node, false, null));
        assertThat(other.patch(Api.POOLS + "/reserved-pool", "{\"spec\":{\"targetNodes\":4}}")
                        .code())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    SpineIT.assertHealthy(other.get(Api.POOLS + "/reserved-pool"), 4);
                    var spot = demo.get(Api.POOLS + "/spot-pool");
                    assertThat(spot.number("/status/currentNodes")).isZero();
                    assertThat(spot.number("/status/queuedNodes")).isEqualTo(4);
                    assertThat(SpineIT.reason(spot, "AtTarget")).isEqualTo("UnderTarget/False");
                    assertThat(SpineIT.reason(spot, "Capacity")).isEqualTo("QueuedAwaitingCapacity/False");
                });
        assertThat(demo.get(Api.POOLS + "/spot-pool/preemptions").number("/last7d"))
                .isEqualTo(4);

        // The fleet grows: the spot pool scales back by itself.
        SystemStack.fleet(SystemStack.forDisruption(), ZONE, type, 8);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> SpineIT.assertHealthy(demo.get(Api.POOLS + "/spot-pool"), 4));
    }

    @Test
    void aPreemptionServiceKilledMidTimelineKeepsEveryNodesSchedule() {
        String type = "gd-8xl40-i128";
        SystemStack.quota(SystemStack.forDisruption(), "demo", ZONE, type, 4);
        SystemStack.fleet(SystemStack.forDisruption(), ZONE, type, 2);
        assertThat(demo.post(Api.POOLS, spotPool("spot-restart", type, 2)).code())
                .isEqualTo(201);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> SpineIT.assertHealthy(demo.get(Api.POOLS + "/spot-restart"), 2));
        nodeNames(demo, "spot-restart").forEach(node -> activity("spot-restart", node, true, 600));

        var reclaim = SystemStack.admin(SystemStack.forDisruption(), Service.CAPACITY)
                .post("/admin/fleet/" + ZONE + "/" + type + "/reclaim-spot", "{\"nodes\": 2}");
        assertThat(reclaim.code()).isIn(200, 202);
        var pending = preemptions(
                kafka.readUntil(
                        Topics.SPOT_PREEMPTION_PROGRESSED.name(),
                        records -> preemptions(records, "demo/spot-restart").size() >= 2,
                        Duration.ofSeconds(60)),
                "demo/spot-restart");
        SystemStack.forDisruption().kill9(Service.PREEMPTION);
        SystemStack.forDisruption().restart(Service.PREEMPTION);

        List<PreemptionFact> facts = awaitPreemptions("demo/spot-restart", 2, Duration.ofSeconds(60));
        assertTimelines(facts);
        for (PreemptionFact first : pending) {
            var removed = removal(facts, first.node());
            var original = (PreemptionFact.PreemptionPending) first;
            assertThat(removed.pendingAt()).as("the timeline was not restarted").isEqualTo(original.pendingAt());
            assertThat(removed.cause()).isEqualTo("Deadline");
            assertThat(removed.removedAt())
                    .as("removed at its original deadline, or as soon as the service was back")
                    .isAfterOrEqualTo(original.removeBy());
        }
        assertThat(Set.copyOf(facts.stream().map(PreemptionFact::node).toList()))
                .hasSize(2);
    }

    private static PreemptionFact.NodePreempted removal(List<PreemptionFact> facts, String node) {
        return facts.stream()
                .filter(f ->
                        f instanceof PreemptionFact.NodePreempted && f.node().equals(node))
                .map(f -> (PreemptionFact.NodePreempted) f)
                .findFirst()
                .orElseThrow();
    }

    private static JsonNode nodeOf(String pool, String node) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (JsonNode n : demo.get(Api.POOLS + "/" + pool + "/nodes").body().path("items")) {
                if (n.at("/metadata/name").asText().equals(node)
                        && n.at("/metadata/labels").has(Node.LABEL_EVICTED_AT)) {
                    return true;
                }
            }
            return false;
        });
        for (JsonNode n : demo.get(Api.POOLS + "/" + pool + "/nodes").body().path("items")) {
            if (n.at("/metadata/name").asText().equals(node)) {
                return n;
            }
        }
        throw new AssertionError(node + " is not a node of " + pool);
    }
}
