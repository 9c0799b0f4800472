package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Issue 11's proof: the real kubectl drives NodePools of the five services as it drives a cluster that serves them:
 * discovery, apply (client- and server-side), wait, get with its columns, describe (the reference's layout, checked
 * against a golden file), jsonpath, explain, patch, scale, replace, nodes, events, watch, delete, and another org's
 * kubeconfig that sees nothing. The steps build on each other, in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@StackUse.Shares
@ResourceLock("US-WEST-04A/gd-8xa100-i128")
class KubectlIT {

    static final String ZONE = "US-WEST-04A";
    static final String TYPE = "gd-8xa100-i128";
    static final String POOL = "kubectl-pool";
    static final String SSA_POOL = "kubectl-ssa";

    @TempDir
    static Path dir;
    /** kubectl of this test's own org (and of another org), so no other test's pools show in its lists. */
    static Kubectl mine;

    static Kubectl other;
    static final List<Process> watches = new ArrayList<>();

    /**
     * How kubectl proves its org: {@code certificate} (the default: a client certificate of the stack's CA,
     * O=kubectl-it and O=kubectl-other, as kubectl's own way) or {@code token} (a bearer token of the test profile),
     * e.g. {@code -Dsystemtest.kubectl-auth=token}.
     */
    static final String AUTH = System.getProperty("systemtest.kubectl-auth", "certificate");

    @BeforeAll
    static void kubeconfigs() {
        var stack = SystemStack.get();
        String pem = stack.apiTls().pem();
        if (AUTH.equals("certificate")) {
            mine = Kubectl.withCertificate(
                    stack.apiHttpsUrl(), pem, stack.apiTls().client("kubectl-it"), dir);
            other = Kubectl.withCertificate(
                    stack.apiHttpsUrl(), pem, stack.apiTls().client("kubectl-other"), dir);
        } else {
            mine = Kubectl.of(stack.apiHttpsUrl(), pem, "kubectl-token", dir);
            other = Kubectl.of(stack.apiHttpsUrl(), pem, "kubectl-other-token", dir);
        }
        SystemStack.quota("kubectl-it", ZONE, TYPE, 8);
        SystemStack.fleet(ZONE, TYPE, 8);
    }

    @AfterAll
    static void stopWatches() {
        watches.forEach(Process::destroy);
    }

    /** The reference's healthy example pool, in this test's zone. */
    static String pool(String name, int target) {
        return """
        apiVersion: compute.coreweave.com/v1alpha1
        kind: NodePool
        metadata:
          name: %s
        spec:
          region: %s
          instanceType: %s
          targetNodes: %d
          autoscaling: false
          minNodes: 0
          maxNodes: 0
          lifecycle:
            disableUnhealthyNodeEviction: true
            scaleDownStrategy: IdleOnly
        """.formatted(name, ZONE, TYPE, target);
    }

    static String cell(String value) {
        return "\\s+" + value;
    }

    @Test
    @Order(1)
    void apiResourcesListsNodePoolsNodesAndEvents() {
        String out = mine.run("api-resources").ok().out();

        assertThat(out)
                .containsPattern("nodepools\\s+np\\s+compute.coreweave.com/v1alpha1\\s+false\\s+NodePool")
                .containsPattern("nodes\\s+no\\s+v1\\s+false\\s+Node")
                .containsPattern("events\\s+ev\\s+v1\\s+true\\s+Event");
    }

    @Test
    @Order(2)
    void applyCreatesThenWaitAndGetShowTheHealthyPool() {
        assertThat(mine.runWith(pool(POOL, 1), "apply", "-f", "-").ok().out())
                .contains("nodepool.compute.coreweave.com/" + POOL + " created");
        assertThat(mine.run("wait", "--for=condition=AtTarget", "nodepool/" + POOL, "--timeout=120s")
                        .ok()
                        .out())
                .contains("nodepool.compute.coreweave.com/" + POOL + " condition met");

        String table = mine.run("get", "nodepools").ok().out();
        assertThat(table.lines().findFirst().orElseThrow())
                .matches(
                        "NAME\\s+INSTANCE TYPE\\s+TARGET\\s+CURRENT\\s+IN PROGRESS\\s+QUEUED\\s+VALIDATED\\s+AT TARGET\\s+AGE\\s*");
        assertThat(table)
                .containsPattern(POOL
                        + cell(TYPE)
                        + cell("1")
                        + cell("1")
                        + cell("0")
                        + cell("0")
                        + cell("Valid")
                        + cell("TargetMet")
                        + cell("\\d+s"));
        assertThat(mine.run("get", "nodepools", "-o", "wide").ok().out())
                .containsPattern("ZONE\\s+COMPUTE CLASS\\s+QUOTA\\s+CAPACITY")
                .containsPattern(POOL + ".*" + ZONE + cell("default") + cell("Under") + cell("Sufficient"));
    }

    @Test
    @Order(3)
    void describeShowsTheReferenceLayoutConditionsAndEvents() throws IOException {
        String described = mine.run("describe", "nodepools", POOL).ok().out();

        List<String> layout = layout(described.substring(0, described.indexOf("Events:") + "Events:".length()));
        assertThat(String.join("\n", layout)).isEqualTo(golden("describe-nodepool.txt"));
        assertThat(keysInOrder(layout))
                .as("the reference's describe keys, in its order and indentation")
                .containsSubsequence(keysInOrder(layout(
                        golden("reference-describe.txt").replace("Events:                      <none>", "Events:"))));
        String events = described.substring(described.indexOf("Events:"));
        assertThat(events)
                .containsPattern("Type\\s+Reason\\s+Age\\s+From\\s+Message")
                .containsPattern(
                        "Normal\\s+CWNodePoolCreated\\s+\\S+\\s+nodepool-api-service\\s+NodePool " + POOL + " created")
                .containsPattern("Normal\\s+CWNodeAssigned\\s+\\S+\\s+provisioner-service")
                .as("a node event the reference lists under Node, NodePool is the pool's too")
                .containsPattern("Normal\\s+CWNodeRegistered\\s+\\S+\\s+provisioner-service\\s+Node \\S+ registered");
    }

    @Test
    @Order(4)
    void applyConfiguresJsonpathReadsAndExplainPrintsTheReference() {
        assertThat(mine.runWith(pool(POOL, 2), "apply", "-f", "-").ok().out())
                .contains("nodepool.compute.coreweave.com/" + POOL + " configured");
        assertThat(mine.runWith(pool(POOL, 2), "apply", "-f", "-").ok().out()).contains(POOL + " unchanged");
        mine.run("wait", "--for=condition=AtTarget", "nodepool/" + POOL, "--timeout=120s")
                .ok();
        assertThat(mine.run("get", "nodepool", POOL, "-o", "jsonpath={.status.currentNodes}")
                        .ok()
                        .out())
                .isEqualTo("2");

        assertThat(mine.run("explain", "nodepool.spec.targetNodes").ok().out())
                .contains("FIELD: targetNodes <integer>", "The quantity of desired Nodes in the Node Pool");
    }

    @Test
    @Order(5)
    void patchScaleAndReplaceOfGetYamlWork() {
        assertThat(mine.run(
                                "patch",
                                "nodepool",
                                POOL,
                                "--type=merge",
                                "-p",
                                "{\"metadata\":{\"labels\":{\"team\":" + "\"ml\"}}}")
                        .ok()
                        .out())
                .contains(POOL + " patched");
        assertThat(mine.run(
                                "patch",
                                "nodepool",
                                POOL,
                                "--type=json",
                                "-p",
                                "[{\"op\":\"add\",\"path\":\"/spec/nodeLabels\",\"value\":{\"tier\":\"gold\"}}]")
                        .ok()
                        .out())
                .contains(POOL + " patched");
        assertThat(mine.run("get", "nodepools", "-l", "team=ml", "-o", "name")
                        .ok()
                        .out()
                        .trim())
                .isEqualTo("nodepool.compute.coreweave.com/" + POOL);
        assertThat(mine.run(
                                "get",
                                "nodepools",
                                "--field-selector",
                                "metadata.name=" + POOL,
                                "-o",
                                "jsonpath={.items[0].spec.nodeLabels.tier}")
                        .ok()
                        .out())
                .isEqualTo("gold");

        assertThat(mine.run("scale", "nodepool", POOL, "--replicas=3").ok().out())
                .contains(POOL + " scaled");
        assertThat(mine.run("get", "nodepool", POOL, "-o", "jsonpath={.spec.targetNodes}")
                        .ok()
                        .out())
                .isEqualTo("3");
        mine.run("wait", "--for=condition=AtTarget", "nodepool/" + POOL, "--timeout=120s")
                .ok();

        String yaml = mine.run("get", "nodepool", POOL, "-o", "yaml").ok().out();
        assertThat(yaml).contains("status:", "resourceVersion:");
        assertThat(mine.runWith(yaml.replace("team: ml", "team: research"), "replace", "-f", "-")
                        .ok()
                        .out())
                .contains(POOL + " replaced");
        assertThat(mine.run("get", "nodepool", POOL, "-o", "jsonpath={.metadata.labels.team}")
                        .ok()
                        .out())
                .isEqualTo("research");
    }

    @Test
    @Order(6)
    void serverSideApplyTracksFieldManagersAndConflicts() {
        for (int applies = 0; applies < 2; applies++) {
            assertThat(mine.runWith(pool(SSA_POOL, 1), "apply", "--server-side", "-f", "-")
                            .ok()
                            .out())
                    .contains(SSA_POOL + " serverside-applied");
        }
        mine.runWith("""
        apiVersion: compute.coreweave.com/v1alpha1
        kind: NodePool
        metadata:
          name: %s
          labels: {owner: platform}
        """.formatted(SSA_POOL), "apply", "--server-side", "--field-manager=labeller", "-f", "-")
                .ok();
        mine.run("scale", "nodepool", SSA_POOL, "--replicas=2").ok();

        Kubectl.Run conflict = mine.runWith(pool(SSA_POOL, 1), "apply", "--server-side", "-f", "-");
        assertThat(conflict.exit()).isNotZero();
        assertThat(conflict.err())
                .contains("Apply failed with 1 conflict", "conflict with \"kubectl\"", ".spec.targetNodes");
        String managers = mine.run(
                        "get",
                        "nodepool",
                        SSA_POOL,
                        "--show-managed-fields",
                        "-o",
                        "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}")
                .ok()
                .out();
        assertThat(managers).contains("kubectl/Apply", "labeller/Apply", "kubectl/Update");

        mine.runWith(pool(SSA_POOL, 1), "apply", "--server-side", "--force-conflicts", "-f", "-")
                .ok();
        assertThat(mine.run("get", "nodepool", SSA_POOL, "-o", "jsonpath={.spec.targetNodes}/{.metadata.labels.owner}")
                        .ok()
                        .out())
                .isEqualTo("1/platform");
    }

    @Test
    @Order(7)
    void nodesAndEventsOfThePoolAreCoreObjects() {
        String nodes = mine.run("get", "nodes", "-l", "compute.coreweave.com/node-pool=" + POOL)
                .ok()
                .out();
        assertThat(nodes.lines().skip(1).filter(l -> l.matches("\\S+\\s+Ready\\s+<none>\\s+\\S+\\s+" + POOL + ".*")))
                .hasSize(3);
        String node = nodes.lines().skip(1).findFirst().orElseThrow().split("\\s+")[0];
        assertThat(mine.run("describe", "node", node).ok().out())
                .containsPattern("compute.coreweave.com/node-pool=" + POOL)
                .containsPattern("CWRegistered\\s+True")
                .containsPattern("nvidia.com/gpu:\\s+8");

        assertThat(mine.run("get", "events").ok().out())
                .containsPattern("Normal\\s+CWNodePoolCreated\\s+nodepool/" + POOL)
                .containsPattern("Normal\\s+CWNodeRegistered\\s+node/" + node);

        // kubectl delete node waits (by its watch) until the node is gone; the pool gets a replacement.
        assertThat(mine.run("delete", "node", node, "--timeout=120s").ok().out())
                .contains("node \"" + node + "\" deleted");
        assertThat(mine.run("get", "nodes", "-l", "compute.coreweave.com/node-pool=" + POOL, "-o", "name")
                        .ok()
                        .out())
                .doesNotContain("node/" + node + "\n");
        mine.run("wait", "--for=condition=AtTarget", "nodepool/" + POOL, "--timeout=120s")
                .ok();
    }

    @Test
    @Order(8)
    void eventsTypesWarningWatchAndGetWatchSeeChangesAsTheyHappen() throws IOException {
        Path eventWatch = dir.resolve("events-watch.txt");
        Path poolWatch = dir.resolve("pools-watch.txt");
        watches.add(mine.background(eventWatch, "events", "--types=Warning", "--watch"));
        Path nodeWatch = dir.resolve("nodes-watch.txt");
        watches.add(mine.background(poolWatch, "get", "nodepools", "-w"));
        watches.add(mine.background(
                nodeWatch,
                "get",
                "nodes",
                "-l",
                "compute.coreweave.com/node-pool=" + POOL,
                "-w",
                "--output-watch-events"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.readString(poolWatch).contains(POOL)
                        && Files.readString(nodeWatch).contains(POOL));

        // The A100 is not offered in EU-SOUTH-04A: the pool is refused with a Warning event.
        String misplaced = pool("kubectl-misplaced", 1).replace(ZONE, "EU-SOUTH-04A");
        mine.runWith(misplaced, "apply", "-f", "-").ok();
        mine.run("scale", "nodepool", POOL, "--replicas=2").ok();

        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(Files.readString(eventWatch))
                        .containsPattern("Warning\\s+CWInstanceTypeNotInZone\\s+NodePool/kubectl-misplaced"));
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(Files.readString(poolWatch))
                        .containsPattern(POOL
                                + cell(TYPE)
                                + cell("2")
                                + cell("2")
                                + cell("0")
                                + cell("0")
                                + cell("Valid")
                                + cell("TargetMet"))
                        .containsPattern("kubectl-misplaced" + cell(TYPE) + cell("1") + ".*Invalid"));
        // The scale-down's node leaves the pool: the node watch (fed by the node facts) sees it go, from the list's
        // version.
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> assertThat(Files.readString(nodeWatch)).containsPattern("DELETED\\s+\\S+\\s+.*" + POOL));
        assertThat(Files.readString(nodeWatch)).doesNotContain("Error from server");
        assertThat(Files.readString(eventWatch)).doesNotContain("Normal");
        assertThat(mine.run("events", "--types=Warning").ok().out())
                .containsPattern("Warning\\s+CWInstanceTypeNotInZone\\s+NodePool/kubectl-misplaced")
                .doesNotContain("Normal");
    }

    @Test
    @Order(9)
    void anotherOrgSeesNoneOfThem() {
        Kubectl.Run get = other.run("get", "nodepool", POOL);
        assertThat(get.exit()).isNotZero();
        assertThat(get.err())
                .contains("Error from server (NotFound): nodepools.compute.coreweave.com \"" + POOL + "\" not found");
        assertThat(other.run("get", "nodepools").ok().err()).contains("No resources found");
        assertThat(other.run("get", "nodes").ok().err()).contains("No resources found");
        assertThat(other.run("describe", "nodepool", POOL).exit()).isNotZero();
    }

    @Test
    @Order(10)
    void mistakesAreClearErrorsThatCostNoNode() {
        Kubectl.Run typo = mine.runWith(
                pool(POOL, 2).replace("targetNodes", "targetNode"), "apply", "--validate=strict", "-f", "-");
        assertThat(typo.exit()).isNotZero();
        assertThat(typo.err()).contains("unknown field \"targetNode\"");
        String stale = mine.run("get", "nodepool", POOL, "-o", "yaml").ok().out();
        mine.run("label", "nodepool", POOL, "touched=yes").ok();
        Kubectl.Run conflict = mine.runWith(stale, "replace", "-f", "-");
        assertThat(conflict.exit()).isNotZero();
        assertThat(conflict.err()).contains("Conflict", "the object has been modified");
        assertThat(mine.run("get", "nodepool", POOL, "-o", "jsonpath={.status.currentNodes}")
                        .ok()
                        .out())
                .isEqualTo("2");
    }

    @Test
    @Order(11)
    void deleteRemovesThePoolAndWaitsForIt() {
        assertThat(mine.run("delete", "nodepool", SSA_POOL, "--timeout=120s")
                        .ok()
                        .out())
                .contains("nodepool.compute.coreweave.com \"" + SSA_POOL + "\" deleted");
        Kubectl.Run gone = mine.run("get", "nodepool", SSA_POOL);
        assertThat(gone.exit()).isNotZero();
        assertThat(gone.err()).contains("not found");
    }

    /**
     * As in a cluster, a deleted pool's Events stay listed (for an hour; 15 s in this stack, an hour-equivalent): its
     * history to its deletion, for its org only, then gone.
     */
    @Test
    @Order(12)
    void aDeletedPoolsEventsStayListedForTheRetentionThenGo() {
        String object = "nodepool/" + SSA_POOL;
        assertThat(mine.run("get", "events").ok().out())
                .containsPattern("Normal\\s+CWNodePoolCreated\\s+" + object + "\\s")
                .containsPattern("Normal\\s+CWNodePoolDeleted\\s+" + object + "\\s+NodePool " + SSA_POOL + " deleted");
        assertThat(mine.run("get", "events", "--field-selector", "involvedObject.name=" + SSA_POOL, "-o", "name")
                        .ok()
                        .out()
                        .lines())
                .hasSizeGreaterThanOrEqualTo(2);
        assertThat(other.run("get", "events").ok().out()
                        + other.run("get", "events").err())
                .as("another org's kubectl")
                .doesNotContain(SSA_POOL);

        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofSeconds(5))
                .untilAsserted(
                        () -> assertThat(mine.run("get", "events").ok().out()).doesNotContain(object + " "));
        assertThat(mine.run("get", "events").ok().out())
                .as("a live pool's Events stay")
                .contains("nodepool/" + POOL);
    }

    /**
     * A server-side apply of a pool that client-side writes made moves the fields of the Update manager that last wrote
     * kubectl's last-applied annotation (here {@code kubectl replace}) to kubectl's Apply manager: kubectl PATCHes
     * {@code metadata.managedFields}, and the server takes them, without kubectl's "server rejected managed fields
     * migration".
     */
    @Test
    @Order(13)
    void serverSideApplyAfterClientSideWritesMigratesTheirManagedFields() {
        Kubectl.Run applied = mine.runWith(pool(POOL, 2), "apply", "--server-side", "-f", "-");

        assertThat(applied.ok().out()).contains(POOL + " serverside-applied");
        assertThat(applied.err()).doesNotContain("managed fields migration");
        String managers = mine.run(
                        "get",
                        "nodepool",
                        POOL,
                        "--show-managed-fields",
                        "-o",
                        "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}")
                .ok()
                .out();
        assertThat(managers).contains("kubectl/Apply").doesNotContain("kubectl-replace/");
        String updaters = mine.run(
                        "get",
                        "nodepool",
                        POOL,
                        "--show-managed-fields",
                        "-o",
                        "jsonpath={range .metadata.managedFields[?(@.operation==\"Update\")]}{.manager} {.fieldsV1}{\"\\n\"}{end}")
                .ok()
                .out();
        assertThat(updaters)
                .as("no Update manager owns the last-applied annotation")
                .doesNotContain("last-applied");
        assertThat(mine.run("get", "nodepool", POOL, "-o", "jsonpath={.spec.targetNodes}/{.spec.nodeLabels.tier}")
                        .ok()
                        .out())
                .isEqualTo("2/gold");
    }

    /** The lines of a describe with the values that change from run to run replaced, and spacing normalised. */
    static List<String> layout(String text) {
        return text.lines()
                .filter(l -> !l.startsWith("#") && !l.startsWith("```"))
                .map(l -> l.replaceAll("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z", "<time>")
                        .replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uid>")
                        .replaceAll("(Resource Version:\\s+)\\S+", "$1<version>")
                        .replaceAll("np-[0-9a-f]{8}", "<profile>")
                        .replaceAll("(\\S)\\s{2,}", "$1  ")
                        .stripTrailing())
                .toList();
    }

    /** Each line's indentation and key ({@code " Generation"}), for lines that have a key. */
    static List<String> keysInOrder(List<String> layout) {
        return layout.stream()
                .filter(l -> l.contains(":"))
                .map(l -> l.substring(0, l.indexOf(':')))
                .toList();
    }

    static String golden(String name) throws IOException {
        try (var in = Objects.requireNonNull(KubectlIT.class.getResourceAsStream("/golden/" + name), name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).stripTrailing();
        }
    }
}
