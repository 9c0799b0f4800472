package com.coreweave.nodepool.provisioner.domain.controllers.lifecycle;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.machine;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.Ledger;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeFact.NodeUpdated;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Taint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What a user sets on a node with kubectl, and how it lives beside what the platform sets. */
class UserChangesTest {

    static final Duration BOOT = Duration.ofSeconds(10);

    PoolDriver pool = new PoolDriver(policy(BOOT));
    Ledger ledger = new Ledger(12);
    int requests;

    void registered(int target) {
        pool.spec(accepted(spec(target), 1));
        pool.grants(ledger.grant(pool.facts, target, 1));
        pool.tick(BOOT);
    }

    NodeChangeRequested change(
            int machine,
            Boolean cordon,
            Map<String, String> labels,
            List<String> removedLabels,
            List<Taint> taints,
            boolean evicted) {
        return new NodeChangeRequested(
                "change-" + (++requests),
                Fixtures.ORG,
                Fixtures.POOL,
                Fixtures.UID,
                machine(machine),
                cordon,
                labels,
                removedLabels,
                Map.of(),
                List.of(),
                taints,
                evicted,
                pool.now);
    }

    /** The node as the api-service sees it: the last fact published about it. */
    Node published(int machine) {
        return pool.state.nodes().get(machine(machine)).published();
    }

    @Test
    void aUsersCordonIsPublishedWithItsEventAndTheirUncordonLiftsIt() {
        registered(2);

        pool.change(change(1, true, null, null, null, false));

        assertThat(pool.lastFacts(NodeUpdated.class)).singleElement().satisfies(fact -> {
            assertThat(fact.node().spec().unschedulable()).isTrue();
            assertThat(fact.node().metadata().annotations()).containsEntry(Node.ANNOTATION_CORDONED_BY, "user");
        });
        assertThat(pool.lastReasons())
                .as("the kubelet's reason: CWNodeCordoned is the platform's own automation")
                .containsExactly("NodeNotSchedulable");

        pool.change(change(1, false, null, null, null, false));

        assertThat(published(1).spec().unschedulable()).isFalse();
        assertThat(pool.lastReasons()).containsExactly("NodeSchedulable");
    }

    @Test
    void aRemediationsUncordonLeavesTheUsersCordonAndTheUsersUncordonLeavesTheRemediations() {
        registered(2);
        pool.change(change(1, true, null, null, null, false));

        pool.raise(1, "GPUTimeoutError");
        assertThat(published(1).metadata().annotations()).containsEntry(Node.ANNOTATION_CORDONED_BY, "platform,user");
        pool.tick(BOOT);
        assertThat(pool.lastReasons()).contains("CWNodeUncordoned").doesNotContain("NodeSchedulable");
        assertThat(published(1).spec().unschedulable())
                .as("the reboot ended, the user's cordon stays")
                .isTrue();

        pool.raise(2, "GPUFallenOffBus");
        pool.change(change(2, true, null, null, null, false));
        pool.change(change(2, false, null, null, null, false));
        assertThat(published(2).spec().unschedulable())
                .as("the remediation's cordon stays after the user's uncordon")
                .isTrue();
    }

    @Test
    void aUsersLabelsAndTaintsSurviveThePoolsReconcileOfItsOwnMetadata() {
        registered(1);
        Taint gpuWork = new Taint("team.example.com/gpu", "a", "NoSchedule");
        pool.change(change(1, null, Map.of("team", "a"), null, List.of(gpuWork), false));
        assertThat(pool.lastReasons()).containsExactly("NodeTaintedByUser");

        pool.spec(accepted(
                Fixtures.withLabels(
                        spec(1), Map.of("tier", "gold"), List.of(new Taint("dedicated", "ml", "NoExecute"))),
                2));
        pool.tick(Duration.ofSeconds(1));

        Node node = published(1);
        assertThat(node.metadata().labels())
                .containsEntry("team", "a")
                .containsEntry("tier", "gold")
                .containsEntry(Node.LABEL_NODE_POOL, Fixtures.POOL);
        assertThat(node.spec().taints()).containsExactly(new Taint("dedicated", "ml", "NoExecute"), gpuWork);

        pool.change(change(1, null, null, List.of("team"), List.of(), false));
        assertThat(published(1).metadata().labels()).doesNotContainKey("team").containsEntry("tier", "gold");
        assertThat(published(1).spec().taints()).containsExactly(new Taint("dedicated", "ml", "NoExecute"));
        assertThat(pool.lastReasons()).containsExactly("NodeUntaintedByUser");
    }

    @Test
    void theBudgetIsPublishedForTheEvictionCheckAndAnEvictionMakesTheBusyNodeIdle() {
        registered(2);
        pool.report(new NodeActivityReported(Fixtures.ORG, Fixtures.POOL, machine(1), true, 30, pool.now, 0));
        assertThat(published(1).metadata().annotations())
                .as("the budget is published for the api-service's eviction check")
                .containsEntry(Node.ANNOTATION_DISRUPTIONS_ALLOWED, "0");
        pool.report(new NodeActivityReported(Fixtures.ORG, Fixtures.POOL, machine(1), true, 30, pool.now, 1));
        assertThat(pool.lastFacts(NodeUpdated.class))
                .as("a changed budget of a busy node is a change of the node")
                .singleElement()
                .satisfies(f -> assertThat(f.node().metadata().annotations())
                        .containsEntry(Node.ANNOTATION_DISRUPTIONS_ALLOWED, "1"));

        pool.change(change(1, null, null, null, null, true));
        pool.change(change(2, null, null, null, null, true));

        assertThat(published(1).isActive()).isFalse();
        assertThat(published(1).metadata().annotations()).doesNotContainKey(Node.ANNOTATION_DISRUPTIONS_ALLOWED);
        assertThat(pool.last.facts()).as("an idle node has nothing to evict").isEmpty();
    }

    @Test
    void aRedeliveredChangeOrOneForAnotherIncarnationChangesNothing() {
        registered(1);
        NodeChangeRequested cordon = change(1, true, null, null, null, false);
        pool.change(cordon);
        pool.change(change(1, false, null, null, null, false));

        pool.change(cordon);
        assertThat(pool.last.facts()).isEmpty();
        pool.change(new NodeChangeRequested(
                "other",
                Fixtures.ORG,
                Fixtures.POOL,
                "another-uid",
                machine(1),
                true,
                null,
                null,
                null,
                null,
                null,
                false,
                pool.now));
        assertThat(pool.last.facts()).isEmpty();
        assertThat(published(1).spec().unschedulable()).isFalse();
    }

    @Test
    void aChangeThatWouldTakeTheNodePastTheLimitsIsNotMade() {
        registered(1);
        Map<String, String> many = IntStream.range(0, Limits.MAX_USER_NODE_MARKS)
                .boxed()
                .collect(Collectors.toMap(i -> "k" + i, i -> "v"));
        pool.change(change(1, null, many, null, null, false));
        pool.change(change(1, null, Map.of("one-more", "v"), null, null, false));

        assertThat(published(1).metadata().labels()).containsKey("k0").doesNotContainKey("one-more");
    }
}
