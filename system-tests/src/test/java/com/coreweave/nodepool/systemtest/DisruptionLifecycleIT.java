package com.coreweave.nodepool.systemtest;

import static com.coreweave.nodepool.systemtest.NodeHealthIT.WAIT;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.awaitTargetMet;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.condition;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.names;
import static com.coreweave.nodepool.systemtest.NodeHealthIT.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Kcat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Voluntary disruptions beyond the reference, as their users drive them. A do-not-disrupt hold, set as its users set
 * it: {@code kubectl annotate node} by a person, {@code doNotDisrupt} on an activity report that a platform team's
 * librdkafka client publishes. A scale-down takes the unheld node, says which held ones wait and why ({@code kubectl
 * describe}), and takes each once its hold is lifted. Expiry: a pool whose {@code expireAfter} passes has every node
 * rotated onto a fresh one, one at a time under its budget, and stops when it is set to {@code Never}. The tests share
 * one zone × type, one after the other.
 */
@StackUse.Shares
@ResourceLock(DisruptionLifecycleIT.ZONE + "/" + DisruptionLifecycleIT.TYPE)
class DisruptionLifecycleIT {

    static final String ZONE = "US-EAST-08A";
    static final String TYPE = "cd-hp-a96-genoa";
    static final String HOLD = "compute.coreweave.com/do-not-disrupt";

    @TempDir
    static Path dir;

    @Test
    void heldNodesStayThroughAScaleDownUntilTheirHoldIsLifted() {
        OnePool pool = OnePool.in("held-nodes", ZONE, TYPE, 3);
        var created = pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":3,"lifecycle":{"scaleDownStrategy":"PreferIdle"}}}""".formatted(pool.name, TYPE, ZONE));
        assertThat(created.code()).as(created.body().toString()).isEqualTo(201);
        awaitTargetMet(pool, 3);
        List<String> nodes = names(pool);
        String annotated = nodes.get(0);
        String busy = nodes.get(1);
        var stack = SystemStack.get();
        Kubectl kubectl = Kubectl.of(stack.apiHttpsUrl(), stack.apiTls().pem(), "demo-token", dir);

        Kubectl.Run mistake = kubectl.run("annotate", "node", annotated, HOLD + "=yes");
        assertThat(mistake.exit()).isNotZero();
        assertThat(mistake.err()).contains(HOLD, "must be \"true\" or \"false\"");
        assertThat(kubectl.run("annotate", "node", annotated, HOLD + "=true")
                        .ok()
                        .out())
                .contains("node/" + annotated + " annotated");
        report(busy, true);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() ->
                        assertThat(condition(node(pool, busy), "CWActive")).isEqualTo("True/ActiveDoNotDisrupt"));

        assertThat(pool.demo
                        .patch(pool.path(), "{\"spec\":{\"targetNodes\":0}}")
                        .code())
                .isEqualTo(200);
        await().atMost(WAIT).untilAsserted(() -> assertThat(names(pool)).containsExactlyInAnyOrder(annotated, busy));
        String described =
                kubectl.run("describe", "nodepool", pool.name).ok().out().replaceAll("\\s+", " ");
        assertThat(described)
                .contains(
                        "DisruptionBlocked",
                        "2 node(s) to leave for the scale-down to 0 are held by do-not-disrupt:",
                        annotated + " (annotation " + HOLD + "=true)",
                        busy + " (its workload)");
        for (String held : List.of(annotated, busy)) {
            assertThat(node(pool, held).at("/spec/unschedulable").asBoolean())
                    .as("%s still serves", held)
                    .isFalse();
        }

        kubectl.run("annotate", "node", annotated, HOLD + "-").ok();
        await().atMost(WAIT).untilAsserted(() -> assertThat(names(pool)).containsExactly(busy));
        assertThat(pool.get().body().at("/status/disruption/blocked").findValuesAsText("message"))
                .singleElement()
                .asString()
                .contains("1 node(s) to leave for the scale-down to 0 are held by do-not-disrupt: " + busy);

        report(busy, false);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(
                                node(pool, busy).at("/spec/unschedulable").asBoolean())
                        .as("released, the busy node drains")
                        .isTrue());
        idle(pool, busy);
        awaitTargetMet(pool, 0);
        assertThat(pool.get().body().at("/status/disruption/blocked").isMissingNode())
                .isTrue();
    }

    @Test
    void expiredNodesAreRotatedOneAtATimeUntilExpiryIsSetToNever() throws Exception {
        OnePool pool = OnePool.in("expiring-nodes", ZONE, TYPE, 4);
        var stack = SystemStack.get();
        Kubectl kubectl = Kubectl.of(stack.apiHttpsUrl(), stack.apiTls().pem(), "demo-token", dir);
        assertThat(kubectl.run("explain", "nodepool.spec.disruption.expireAfter")
                        .ok()
                        .out())
                .contains("Never", "Karpenter");
        Kubectl.Run wrong = kubectl.runWith(manifest(pool.name, "30d"), "apply", "-f", "-");
        assertThat(wrong.exit()).isNotZero();
        assertThat(wrong.err()).contains("spec.disruption.expireAfter");
        kubectl.runWith(manifest(pool.name, "15s"), "apply", "-f", "-").ok();
        awaitTargetMet(pool, 3);
        Map<String, String> born = created(pool);
        ServingSampler sampler = ServingSampler.of(pool);
        try (sampler) {
            await().atMost(WAIT.multipliedBy(2))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        Map<String, String> now = created(pool);
                        assertThat(now.size()).isEqualTo(3);
                        assertThat(born)
                                .allSatisfy((name, created) -> assertThat(now.get(name))
                                        .as("%s rotated", name)
                                        .isNotEqualTo(created));
                    });
        }
        assertThat(sampler.fewest())
                .as("serving nodes seen through REST while rotating")
                .isEqualTo(2);
        assertThat(pool.events("NodeExpired").size()).isGreaterThanOrEqualTo(3);

        kubectl.runWith(manifest(pool.name, "Never"), "apply", "-f", "-").ok();
        awaitTargetMet(pool, 3);
        long expiredSoFar = pool.events("NodeExpired").size();
        await().during(Duration.ofSeconds(20))
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(pool.events("NodeExpired").size())
                        .as("no rotation once expireAfter is Never")
                        .isEqualTo(expiredSoFar));
        assertThat(pool.demo.delete(pool.path()).code()).isBetween(200, 202);
        await().atMost(WAIT).untilAsserted(() -> assertThat(pool.get().code()).isEqualTo(404));
    }

    /** Each node's creationTimestamp, by name. */
    static Map<String, String> created(OnePool pool) {
        Map<String, String> created = new LinkedHashMap<>();
        pool.nodes()
                .forEach(n -> created.put(
                        n.at("/metadata/name").asText(),
                        n.at("/metadata/creationTimestamp").asText()));
        return created;
    }

    static String manifest(String name, String expireAfter) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":3,
          "disruption":{"expireAfter":"%s","budgets":[{"nodes":"1","reasons":["Expired"]}]}}}""".formatted(name, TYPE, ZONE, expireAfter);
    }

    /** The platform team reports {@code node} busy with its own librdkafka client, on its org's topic. */
    static void report(String node, boolean doNotDisrupt) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("org", "demo");
        report.put("pool", "held-nodes");
        report.put("node", node);
        report.put("active", true);
        report.put("terminationGracePeriodSeconds", 600);
        report.put("doNotDisrupt", doNotDisrupt);
        Kcat.Result result = Kcat.require()
                .run(
                        List.of(
                                "-F",
                                SystemStack.get().kcatConfig("tenant-demo").toString(),
                                "-P",
                                "-t",
                                Topics.NODE_ACTIVITY_REPORTED.name() + ".demo",
                                "-K",
                                "|"),
                        "demo/held-nodes|" + Json.string(report) + "\n");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    static void idle(OnePool pool, String node) {
        assertThat(pool.demo
                        .put(pool.path() + "/nodes/" + node + "/activity", "{\"active\": false}")
                        .code())
                .isEqualTo(202);
    }
}
