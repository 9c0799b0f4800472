package com.coreweave.nodepool.provisioner;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeFact.NodeAssigned;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRegistered;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRegistrationFailed;
import com.coreweave.nodepool.schema.events.NodeFact.NodeRemoved;
import com.coreweave.nodepool.schema.events.NodeFact.NodeUpdated;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.Taint;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The provisioner against the real broker, fed the way the api-service, the capacity ledger and platform teams feed it
 * (boot time 300 ms, drain grace 2 s, image {@code broken-image} never boots: see the test profile).
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class ProvisionerIT {

    static final Duration WAIT = Duration.ofSeconds(30);
    static PoolStandIn.Feeds feeds;

    @BeforeAll
    static void connect() {
        feeds = PoolStandIn.Feeds.open(KafkaResource.bootstrapServers());
    }

    @AfterAll
    static void close() {
        feeds.close();
    }

    /** Settles the ledger until {@code done} holds, as the capacity-service would keep doing. */
    static void settle(PoolStandIn pool, Runnable done) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            pool.settleCapacity();
            done.run();
        });
    }

    static void counts(PoolStandIn pool, int target, int current, int inProgress, int removing) {
        assertThat(pool.reconciled())
                .isNotNull()
                .extracting(
                        NodePoolReconciled::targetNodes,
                        NodePoolReconciled::currentNodes,
                        NodePoolReconciled::inProgress,
                        NodePoolReconciled::removing)
                .containsExactly(target, current, inProgress, removing);
    }

    static List<String> registered(PoolStandIn pool) {
        return pool.nodes().values().stream()
                .filter(n -> n.phase() == Node.Phase.Registered)
                .map(Node::name)
                .toList();
    }

    @Test
    void scaleUpBootsGrantedMachinesIntoRegisteredNodesWithThePoolsLabelsAndTaints() {
        PoolStandIn pool = new PoolStandIn(feeds, "scale-up", 3);
        pool.accept(PoolStandIn.spec(2, Lifecycle.IDLE_ONLY));

        settle(pool, () -> counts(pool, 2, 2, 0, 0));

        assertThat(pool.nodes().values()).hasSize(2).allSatisfy(node -> {
            assertThat(node.phase()).isEqualTo(Node.Phase.Registered);
            assertThat(node.metadata().labels())
                    .containsEntry("team", "research")
                    .containsEntry(Node.LABEL_INSTANCE_TYPE, PoolStandIn.TYPE)
                    .containsEntry(Node.LABEL_ZONE, PoolStandIn.ZONE)
                    .containsEntry(Node.LABEL_NODE_POOL, pool.name)
                    .containsEntry(Node.LABEL_HOSTNAME, node.name());
            assertThat(node.spec().taints()).containsExactly(new Taint("nvidia.com/gpu", "present", "NoSchedule"));
            assertThat(node.status().conditions())
                    .extracting(c -> c.type() + "=" + c.status())
                    .containsExactly("CWActive=False", "CWRegistered=True", "CWNodeRemoval=False", "Ready=True");
            // Booted for the configured boot time before it registered.
            assertThat(Duration.between(
                            node.metadata().creationTimestamp(), node.status().registeredAt()))
                    .isGreaterThanOrEqualTo(Duration.ofMillis(300));
        });
        List<NodeFact> facts = pool.facts();
        for (NodeAssigned assigned : pool.facts(NodeAssigned.class)) {
            assertThat(assigned.node().phase()).isEqualTo(Node.Phase.Booting);
            assertThat(facts.indexOf(assigned))
                    .isLessThan(facts.indexOf(pool.facts(NodeRegistered.class).stream()
                            .filter(r -> r.grant().equals(assigned.grant()))
                            .findFirst()
                            .orElseThrow()));
        }
        assertThat(pool.facts(NodePoolReconciled.class))
                .anySatisfy(r -> assertThat(r.inProgress()).isEqualTo(2));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.reasons())
                        .contains("CWNodePoolScaledUp")
                        .filteredOn("CWNodeAssigned"::equals)
                        .hasSize(2));
        assertThat(pool.reasons()).filteredOn("CWNodeRegistered"::equals).hasSize(2);
    }

    @Test
    void aPoolWhoseImageNeverBootsIsDisabledAndReleasesItsGrantsInsteadOfLoopingForever() {
        PoolStandIn pool = new PoolStandIn(feeds, "broken", 4);
        NodePoolSpec spec = PoolStandIn.spec(2, Lifecycle.IDLE_ONLY);
        pool.accept(new NodePoolSpec(
                spec.computeClass(),
                spec.instanceType(),
                2,
                null,
                null,
                spec.nodeLabels(),
                null,
                spec.nodeTaints(),
                new Image(null, "broken-image", Image.STABLE),
                null,
                false,
                spec.lifecycle(),
                null,
                spec.region()));

        settle(pool, () -> {
            assertThat(pool.reconciled())
                    .isNotNull()
                    .extracting(NodePoolReconciled::disabled)
                    .isEqualTo(true);
            assertThat(pool.nodes()).isEmpty();
        });

        assertThat(pool.reconciled().disabledMessage()).contains("boot failures in a row");
        assertThat(pool.facts(NodeRegistered.class)).isEmpty();
        assertThat(pool.facts(NodeRegistrationFailed.class)).hasSizeGreaterThanOrEqualTo(3);
        List<Grant> bootFailed = pool.facts(NodeRemoved.class).stream()
                .filter(r -> r.cause().equals("BootFailed"))
                .map(NodeRemoved::grant)
                .toList();
        assertThat(bootFailed)
                .isNotEmpty()
                .allMatch(g -> pool.facts(NodeAssigned.class).stream()
                        .anyMatch(a -> a.grant().equals(g)));
        assertThat(pool.events())
                .filteredOn(e -> e.reason().equals("CWNodePoolDisabled"))
                .singleElement()
                .extracting(RecordedEvent::type)
                .isEqualTo("Warning");

        // The ledger grants machines again; the disabled pool holds them and boots nothing more.
        int assigned = pool.facts(NodeAssigned.class).size();
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    pool.settleCapacity();
                    assertThat(pool.facts(NodeAssigned.class)).hasSize(assigned);
                });
    }

    @Test
    void idleOnlyKeepsThePoolOverTargetUntilAnActiveNodeReportsIdle() {
        PoolStandIn pool = new PoolStandIn(feeds, "idle-only", 3);
        pool.accept(PoolStandIn.spec(3, Lifecycle.IDLE_ONLY));
        settle(pool, () -> counts(pool, 3, 3, 0, 0));
        List<String> busy = registered(pool).subList(0, 2);
        busy.forEach(node -> pool.report(node, true));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.nodes().values())
                        .filteredOn(Node::isActive)
                        .extracting(Node::name)
                        .containsExactlyInAnyOrderElementsOf(busy));

        pool.accept(PoolStandIn.spec(1, Lifecycle.IDLE_ONLY));

        settle(pool, () -> counts(pool, 1, 2, 0, 0));
        assertThat(pool.nodes()).containsOnlyKeys(busy);
        await().during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    pool.settleCapacity();
                    counts(pool, 1, 2, 0, 0);
                });

        pool.report(busy.get(1), false);

        settle(pool, () -> counts(pool, 1, 1, 0, 0));
        assertThat(pool.nodes()).containsOnlyKeys(busy.get(0));
        assertThat(pool.facts(NodeRemoved.class))
                .extracting(r -> r.node().name(), NodeRemoved::cause)
                .contains(tuple(busy.get(1), "ScaleDown"));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.reasons())
                        .containsSubsequence(
                                "CWNodePoolRemoveNodes",
                                "CWNodeDeleted",
                                "CWNodeDeleted",
                                "CWNodePoolNodesRemoved",
                                "CWNodePoolScaledDown"));
    }

    @Test
    void preferIdleCordonsAndDrainsAnActiveNodeThenRemovesItOnceItsWorkloadIsIdle() {
        PoolStandIn pool = new PoolStandIn(feeds, "prefer-idle", 2);
        pool.accept(PoolStandIn.spec(2, Lifecycle.PREFER_IDLE));
        settle(pool, () -> counts(pool, 2, 2, 0, 0));
        registered(pool).forEach(node -> pool.report(node, true));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.nodes().values()).allMatch(Node::isActive));

        pool.accept(PoolStandIn.spec(1, Lifecycle.PREFER_IDLE));

        settle(pool, () -> counts(pool, 1, 2, 0, 1));
        Node draining = pool.nodes().values().stream()
                .filter(n -> n.phase() == Node.Phase.Draining)
                .findFirst()
                .orElseThrow();
        assertThat(draining.spec().unschedulable()).isTrue();
        assertThat(draining.status().conditions())
                .filteredOn(c -> c.type().equals(Node.CONDITION_REMOVAL))
                .singleElement()
                .satisfies(c -> assertThat(c.isTrue()).isTrue());
        assertThat(pool.facts(NodeUpdated.class))
                .extracting(NodeUpdated::change)
                .contains("Draining");
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.events())
                        .filteredOn(e -> e.involvedObject().name().equals(draining.name())
                                || e.reason().equals("CWDrainNode"))
                        .extracting(RecordedEvent::reason)
                        .contains("CWNodeCordoned", "CWNodeDraining", "CWDrainNode"));

        pool.report(draining.name(), false);

        settle(pool, () -> {
            counts(pool, 1, 1, 0, 0);
            assertThat(pool.heldGrants())
                    .as("the drained node's grant went back to the ledger")
                    .hasSize(1);
        });
        assertThat(pool.nodes()).doesNotContainKey(draining.name());
    }

    @Test
    void rapidTargetChangesEndAtTheLastTargetWithNoExtraMissingOrDuplicateNode() {
        PoolStandIn pool = new PoolStandIn(feeds, "rapid", 6);
        pool.accept(PoolStandIn.spec(3, Lifecycle.IDLE_ONLY));
        pool.settleCapacity();
        for (int target : new int[] {1, 5, 2, 4}) {
            pool.accept(PoolStandIn.spec(target, Lifecycle.IDLE_ONLY));
            pool.settleCapacity();
        }

        settle(pool, () -> {
            counts(pool, 4, 4, 0, 0);
            assertThat(registered(pool)).hasSize(4);
            Set<Grant> nodeGrants = pool.facts(NodeRegistered.class).stream()
                    .filter(r -> pool.nodes().containsKey(r.node().name()))
                    .map(NodeRegistered::grant)
                    .collect(Collectors.toSet());
            assertThat(nodeGrants)
                    .as("every grant the ledger still holds is one of the nodes: none leaked")
                    .isEqualTo(pool.heldGrants());
        });

        List<Long> assignedGrants = pool.facts(NodeAssigned.class).stream()
                .map(a -> a.grant().grantId())
                .toList();
        assertThat(assignedGrants).as("no grant became two nodes").doesNotHaveDuplicates();
    }

    @Test
    void deletionRemovesEveryNodeAndThenReportsNodesRemoved() {
        PoolStandIn pool = new PoolStandIn(feeds, "deleted", 2);
        pool.accept(PoolStandIn.spec(2, Lifecycle.IDLE_ONLY));
        settle(pool, () -> counts(pool, 2, 2, 0, 0));
        String busy = registered(pool).get(0);
        pool.report(busy, true);
        await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(pool.nodes().get(busy).isActive()).isTrue());

        pool.delete();

        // The idle node goes at once; the busy one drains for the 2 s grace of the test profile.
        settle(pool, () -> {
            assertThat(pool.reconciled())
                    .isNotNull()
                    .extracting(NodePoolReconciled::deleting, NodePoolReconciled::nodesRemoved)
                    .containsExactly(true, true);
            assertThat(pool.heldGrants())
                    .as("every grant went back to the ledger")
                    .isEmpty();
        });
        assertThat(pool.nodes()).isEmpty();
        assertThat(pool.facts(NodeRemoved.class))
                .extracting(NodeRemoved::cause)
                .containsOnly("PoolDeleted")
                .hasSize(2);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.reasons())
                        .containsSubsequence("CWNodePoolRemoveNodes", "CWDrainNode", "CWNodePoolNodesRemoved"));
    }

    @Test
    void unusableActivityReportsGoToTheirDeadLetterTopicWithTheReason() {
        TopicProbe probe = feeds.probe();
        probe.send(Topics.NODE_ACTIVITY_REPORTED.name(), "demo/dlq-pool", "{oops");
        probe.send(
                Topics.NODE_ACTIVITY_REPORTED.name(),
                "demo/dlq-pool",
                "{\"org\":\"demo\",\"pool\":\"another-pool\",\"node\":\"n-1\",\"active\":true}");

        var dead = probe
                .readUntil(
                        Topics.NODE_ACTIVITY_REPORTED_DLQ.name(),
                        r -> r.stream()
                                        .filter(d -> d.key().equals("demo/dlq-pool"))
                                        .count()
                                == 2,
                        WAIT)
                .stream()
                .filter(d -> d.key().equals("demo/dlq-pool"))
                .toList();

        assertThat(dead)
                .extracting(d -> d.headers().get(DeadLetters.ERROR))
                .containsExactly("MalformedJson", "KeyMismatch");
        assertThat(dead.get(0).value()).isEqualTo("{oops");
        assertThat(dead)
                .allSatisfy(d -> assertThat(d.headers())
                        .containsEntry(DeadLetters.SERVICE, "provisioner-service")
                        .containsEntry(DeadLetters.SOURCE_TOPIC, Topics.NODE_ACTIVITY_REPORTED.name())
                        .containsKeys(DeadLetters.REASON, DeadLetters.SOURCE_OFFSET, DeadLetters.FAILED_AT));
    }

    @Test
    void anOperatorsReleaseReachesThePoolsOfItsTrainOnEveryPartitionAsAPendingConfiguration() {
        PoolStandIn pool = new PoolStandIn(feeds, "follows-latest", 1);
        NodePoolSpec base = PoolStandIn.spec(1, Lifecycle.IDLE_ONLY);
        pool.accept(new NodePoolSpec(
                base.computeClass(),
                base.instanceType(),
                1,
                null,
                null,
                base.nodeLabels(),
                base.nodeAnnotations(),
                base.nodeTaints(),
                new Image(null, null, Image.LATEST),
                null,
                false,
                base.lifecycle(),
                null,
                base.region()));
        settle(pool, () -> counts(pool, 1, 1, 0, 0));
        String active = pool.reconciled().nodeProfile();

        given().auth()
                .oauth2("demo-token")
                .contentType("application/json")
                .body("{\"releaseTrain\":\"latest\",\"version\":\"2027.1.0\"}")
                .post("/admin/node-releases")
                .then()
                .statusCode(403);
        given().auth()
                .oauth2("admin-token")
                .contentType("application/json")
                .body("{\"releaseTrain\":\"nightly\",\"version\":\"\",\"extra\":1}")
                .post("/admin/node-releases")
                .then()
                .statusCode(422)
                .body("details.causes.field", org.hamcrest.Matchers.contains("releaseTrain", "version", "extra"));
        given().auth()
                .oauth2("admin-token")
                .contentType("application/json")
                .body("{\"releaseTrain\":\"latest\",\"version\":\"2027.1.0\",\"summary\":[\"Kubernetes v1.33.0\"]}")
                .post("/admin/node-releases")
                .then()
                .statusCode(202)
                .body("version", org.hamcrest.Matchers.is("2027.1.0"));

        settle(
                pool,
                () -> assertThat(pool.reconciled().pendingNodeConfiguration())
                        .isNotNull()
                        .satisfies(p -> assertThat(p.summary())
                                .contains("release train latest: 2027.1.0", "Kubernetes v1.33.0")));
        assertThat(pool.reconciled().nodeProfile()).isEqualTo(active);
        assertThat(pool.reasons()).contains("CWPendingNodeConfig");
        given().auth()
                .oauth2("demo-token")
                .get("/node-releases")
                .then()
                .statusCode(200)
                .body("find { it.releaseTrain == 'latest' }.version", org.hamcrest.Matchers.is("2027.1.0"));
    }

    @Test
    void anOperatorsAlertTakesABadNodeOutOfServiceToMaintenanceAndTheNextGrantReplacesIt() {
        PoolStandIn pool = new PoolStandIn(feeds, "xid-79", 3);
        pool.accept(PoolStandIn.spec(2, Lifecycle.IDLE_ONLY));
        settle(pool, () -> counts(pool, 2, 2, 0, 0));
        String bad = registered(pool).get(0);
        String alert = """
        {"type":"NodeAlertRaised","subject":"%s","data":{"node":"%s","alert":"GPUFallenOffBus","details":"Xid 79"}}
        """.formatted(pool.key(), bad);

        given().auth()
                .oauth2("demo-token")
                .contentType("application/json")
                .body(alert)
                .post("/admin/node-alerts")
                .then()
                .statusCode(403);
        given().auth()
                .oauth2("admin-token")
                .contentType("application/json")
                .body(alert.replace("NodeAlertRaised", "NodeRebooted"))
                .post("/admin/node-alerts")
                .then()
                .statusCode(422)
                .body("details.causes[0].message", org.hamcrest.Matchers.containsString("NodeRebooted"));
        given().auth()
                .oauth2("admin-token")
                .contentType("application/json")
                .body(alert)
                .post("/admin/node-alerts")
                .then()
                .statusCode(202)
                .body("data.alert", org.hamcrest.Matchers.is("GPUFallenOffBus"));

        settle(pool, () -> {
            counts(pool, 2, 2, 0, 0);
            assertThat(pool.nodes()).doesNotContainKey(bad);
        });
        assertThat(pool.maintenance()).containsExactly(bad);
        assertThat(pool.facts(NodeRemoved.class))
                .extracting(r -> r.node().name(), NodeRemoved::cause)
                .containsExactly(tuple(bad, "Replaced"));
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.events().stream()
                                .filter(e -> e.involvedObject().name().equals(bad)
                                        || e.reason().equals("CWNodeDeleted"))
                                .map(RecordedEvent::reason))
                        .containsSubsequence(
                                "CWNodeCordoned",
                                "CWNodeTainted",
                                "CWNodeDraining",
                                "CWNodeMarkedPrepareForTerminate",
                                "CWNodePreparedForTerminate",
                                "CWNodeDeleted"));
    }
}
