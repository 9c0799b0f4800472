package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 29's proof that a pool's nodes are in their users' hands: the real kubectl cordons and uncordons a node, labels
 * and taints it (the user's label surviving the pool's own reconcile; the platform's label, a stale resourceVersion and
 * a server-side apply refused), drains a busy node whose workload's disruption budget first allows no eviction and then
 * one, and another org's kubectl cannot touch it. The steps build on each other, in order, on one pool of two nodes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@StackUse.Shares
@ResourceLock("US-WEST-04A/gd-8xa100-i128")
class KubectlNodesIT {

    static final String ZONE = KubectlIT.ZONE;
    static final String TYPE = KubectlIT.TYPE;
    static final String POOL = "kubectl-nodes";
    static final String ORG = "kubectl-nodes";

    @TempDir
    static Path dir;

    static Kubectl mine;
    static Kubectl other;
    /** The pool's two nodes: the first is cordoned, labelled and tainted, the second drained. */
    static String first;

    static String second;

    @BeforeAll
    static void poolOfTwoNodes() {
        var stack = SystemStack.get();
        String pem = stack.apiTls().pem();
        mine = Kubectl.withCertificate(stack.apiHttpsUrl(), pem, stack.apiTls().client(ORG), dir);
        other = Kubectl.withCertificate(stack.apiHttpsUrl(), pem, stack.apiTls().client(ORG + "-other"), dir);
        SystemStack.quota(ORG, ZONE, TYPE, 4);
        SystemStack.fleet(ZONE, TYPE, 8);
        mine.runWith(KubectlIT.pool(POOL, 2), "apply", "-f", "-").ok();
        mine.run("wait", "--for=condition=AtTarget", "nodepool/" + POOL, "--timeout=120s")
                .ok();
        List<String> nodes = mine.run("get", "nodes", "-l", "compute.coreweave.com/node-pool=" + POOL, "-o", "name")
                .ok()
                .out()
                .lines()
                .map(n -> n.replace("node/", ""))
                .sorted()
                .toList();
        assertThat(nodes).hasSize(2);
        first = nodes.get(0);
        second = nodes.get(1);
    }

    /** The node's row of {@code kubectl get nodes}, once it matches {@code pattern}. */
    static void awaitRow(String node, String pattern) {
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() ->
                        assertThat(mine.run("get", "nodes", node).ok().out()).containsPattern(node + pattern));
    }

    static String jsonpath(String node, String path) {
        return mine.run("get", "node", node, "-o", "jsonpath=" + path).ok().out();
    }

    @Test
    @Order(1)
    void cordonShowsSchedulingDisabledAndUncordonLiftsIt() {
        assertThat(mine.run("cordon", first).ok().out()).contains("node/" + first + " cordoned");
        awaitRow(first, "\\s+Ready,SchedulingDisabled\\s+");

        assertThat(mine.run("uncordon", first).ok().out()).contains("node/" + first + " uncordoned");
        awaitRow(first, "\\s+Ready\\s+");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> assertThat(mine.run("get", "events", "--field-selector", "involvedObject.name=" + first)
                                        .ok()
                                        .out())
                                .as("the kubelet's reasons for a user's cordon, not the platform's CWNodeCordoned")
                                .contains("NodeNotSchedulable", "NodeSchedulable")
                                .doesNotContain("CWNodeCordoned", "CWNodeUncordoned"));
    }

    @Test
    @Order(2)
    void aUsersLabelSurvivesThePoolsReconcileAndThePlatformsLabelIsRefused() {
        assertThat(mine.run("label", "node", first, "team=a").ok().out()).contains("node/" + first + " labeled");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() ->
                        assertThat(jsonpath(first, "{.metadata.labels.team}")).isEqualTo("a"));

        // A change of the pool's node labels makes the provisioner rebuild every node's labels.
        mine.run("patch", "nodepool", POOL, "--type=merge", "-p", "{\"spec\":{\"nodeLabels\":{\"tier\":\"gold\"}}}")
                .ok();
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() ->
                        assertThat(jsonpath(first, "{.metadata.labels.tier}")).isEqualTo("gold"));
        assertThat(jsonpath(first, "{.metadata.labels.team}")).isEqualTo("a");

        Kubectl.Run refused = mine.run("label", "node", first, "compute.coreweave.com/node-pool=other", "--overwrite");
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.err()).contains("is invalid").contains("metadata.labels[compute.coreweave.com/node-pool]");
        assertThat(jsonpath(first, "{.metadata.labels.compute\\.coreweave\\.com/node-pool}"))
                .isEqualTo(POOL);

        Kubectl.Run stale = mine.run("label", "node", first, "team=b", "--overwrite", "--resource-version=1");
        assertThat(stale.exit()).isNotZero();
        assertThat(stale.err()).contains("Conflict");
        String node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + first + "\n  labels:\n    team: c\n";
        Kubectl.Run applied = mine.runWith(node, "apply", "--server-side", "--validate=false", "-f", "-");
        assertThat(applied.exit()).isNotZero();
        // kubectl's words for a 415 to an apply.
        assertThat(applied.err())
                .contains("Server-side apply not available on the server")
                .contains("not \"application/apply-patch+yaml\"");
        assertThat(jsonpath(first, "{.metadata.labels.team}")).isEqualTo("a");
    }

    @Test
    @Order(3)
    void taintAndUntaint() {
        assertThat(mine.run("taint", "node", first, "k=v:NoSchedule").ok().out())
                .contains("node/" + first + " tainted");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() ->
                        assertThat(jsonpath(first, "{.spec.taints[*].key}")).isEqualTo("k"));
        assertThat(mine.run("get", "events", "--field-selector", "involvedObject.name=" + first)
                        .ok()
                        .out())
                .as("a user's taint is not recorded as the platform's automation (CWNodeTainted)")
                .containsPattern("NodeTaintedByUser.*k=v:NoSchedule")
                .doesNotContain("CWNodeTainted");

        assertThat(mine.run("taint", "node", first, "k:NoSchedule-").ok().out())
                .contains("node/" + first + " untainted");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> assertThat(jsonpath(first, "{.spec.taints}")).isEmpty());
    }

    @Test
    @Order(4)
    void drainWaitsForTheDisruptionBudgetAndEvictsOnceItAllowsOneOrDeletesWithoutEviction() {
        report(second, "{\"active\":true,\"disruptionsAllowed\":0}");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(
                                mine.run("get", "pods", "-A", "-o", "name").ok().out())
                        .contains("pod/workload-" + second));

        Kubectl.Run blocked =
                mine.run("drain", second, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=6s");
        assertThat(blocked.exit()).isNotZero();
        assertThat(blocked.err())
                .contains("Cannot evict pod as it would violate the pod's disruption budget")
                .contains("global timeout reached");
        awaitRow(second, "\\s+Ready,SchedulingDisabled\\s+");

        report(second, "{\"active\":true,\"disruptionsAllowed\":1}");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(jsonpath(
                                second, "{.metadata.annotations.compute\\.coreweave\\.com/disruptions-allowed}"))
                        .isEqualTo("1"));
        Kubectl.Run drained =
                mine.run("drain", second, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=60s");
        assertThat(drained.ok().out())
                .contains("evicting pod default/workload-" + second)
                .contains("node/" + second + " drained");
        assertThat(mine.run("get", "pods", "-A", "-o", "name").ok().out()).doesNotContain("workload-" + second);

        // A deletion instead of an eviction bypasses the budget, as on a cluster.
        report(second, "{\"active\":true,\"disruptionsAllowed\":0}");
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(
                                mine.run("get", "pods", "-A", "-o", "name").ok().out())
                        .contains("pod/workload-" + second));
        assertThat(mine.run("drain", second, "--disable-eviction", "--ignore-daemonsets", "--timeout=60s")
                        .ok()
                        .out())
                .contains("node/" + second + " drained");
    }

    @Test
    @Order(5)
    void anotherOrgCannotCordonTheNode() {
        Kubectl.Run cordon = other.run("cordon", first);
        assertThat(cordon.exit()).isNotZero();
        assertThat(cordon.err()).contains("nodes \"" + first + "\" not found");
        awaitRow(first, "\\s+Ready\\s+");
    }

    /** The platform team's activity report for {@code node}, a PUT of the pool's REST endpoint as its org. */
    static void report(String node, String body) {
        mine.runWith(
                        body,
                        "replace",
                        "--raw",
                        "/apis/compute.coreweave.com/v1alpha1/nodepools/" + POOL + "/nodes/" + node + "/activity",
                        "-f",
                        "-")
                .ok();
    }
}
