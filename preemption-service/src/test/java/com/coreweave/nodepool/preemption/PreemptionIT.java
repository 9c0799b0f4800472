package com.coreweave.nodepool.preemption;

import static com.coreweave.nodepool.preemption.PreemptionFacts.ofNode;
import static com.coreweave.nodepool.preemption.PreemptionFacts.only;
import static com.coreweave.nodepool.preemption.PreemptionFacts.phases;
import static com.coreweave.nodepool.preemption.PreemptionFacts.preempted;
import static com.coreweave.nodepool.preemption.PreemptionFacts.reached;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.PreemptionFact.NodePreempted;
import com.coreweave.nodepool.schema.events.PreemptionFact.PreemptionInProgress;
import com.coreweave.nodepool.schema.events.PreemptionFact.PreemptionPending;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.KafkaResource;
import com.coreweave.nodepool.testing.TopicProbe;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The timeline against the real broker, configured in seconds (application.properties, profile test): drain at T+2s,
 * removal by T+7s, SIGKILL 1 s after SIGTERM unless the workload asks for more. Requests and activity are published as
 * the capacity-service and platform teams would.
 */
@QuarkusTest
@WithTestResource(KafkaResource.class)
class PreemptionIT {

    static final Duration WAIT = Duration.ofSeconds(30);
    /** How late a step may fire after its time: a 100 ms tick, the commit it asks for, a busy 2-core machine. */
    static final Duration SLACK = Duration.ofSeconds(2);

    static TopicProbe probe;

    @BeforeAll
    static void open() {
        probe = new TopicProbe(KafkaResource.bootstrapServers());
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    static PoolRef spotPool(String name) {
        return new PoolRef("demo", name, "uid-" + name, 1, "US-EAST-04A", "gd-8xa100-i128", "spot");
    }

    static void report(PoolRef pool, String node, boolean active, Integer graceSeconds) {
        probe.sendJson(
                Topics.NODE_ACTIVITY_REPORTED.name(),
                pool.key().toString(),
                new NodeActivityReported(pool.org(), pool.pool(), node, active, graceSeconds, Instant.now()));
    }

    static void reclaim(PoolRef pool, String reclaimId, String... nodes) {
        probe.sendJson(
                Topics.SPOT_RECLAIM_REQUESTED.name(),
                pool.key().toString(),
                new SpotReclaimRequested(reclaimId, pool, List.of(nodes), "reserved demand waits", Instant.now()));
    }

    @Test
    void reclaimedNodesAreWarnedThenDrainedThenRemovedOnTheConfiguredTimeline() {
        PoolRef pool = spotPool("spot-full");
        // "stubborn" runs a workload that wants 30 s of grace, more than the 5 s left between drain and deadline;
        // "plain" reported nothing, so SIGKILL follows SIGTERM after the default 1 s.
        report(pool, "stubborn", true, 30);
        reclaim(pool, "r-full", "stubborn", "plain");
        reclaim(pool, "r-full-again", "plain", "stubborn");

        List<PreemptionFact> facts =
                PreemptionFacts.progressed(probe, "demo/spot-full", preempted("stubborn", "plain"), WAIT);

        assertThat(phases(ofNode(facts, "stubborn")))
                .as("one of each phase, in order, despite the second reclaim")
                .containsExactly("PreemptionPending", "PreemptionInProgress", "NodePreempted");
        assertThat(phases(ofNode(facts, "plain")))
                .containsExactly("PreemptionPending", "PreemptionInProgress", "NodePreempted");
        assertThat(facts).extracting(PreemptionFact::reclaimId).containsOnly("r-full");

        PreemptionPending pending = only(facts, "stubborn", PreemptionPending.class);
        assertThat(pending.drainAt()).isEqualTo(pending.pendingAt().plusSeconds(2));
        assertThat(pending.removeBy()).isEqualTo(pending.pendingAt().plusSeconds(7));
        PreemptionInProgress draining = only(facts, "stubborn", PreemptionInProgress.class);
        assertThat(draining.evictedAt())
                .isBetween(pending.drainAt(), pending.drainAt().plus(SLACK));
        assertThat(draining.gracePeriodSeconds()).isEqualTo(30);
        assertThat(draining.removeBy()).isEqualTo(pending.removeBy());
        NodePreempted removed = only(facts, "stubborn", NodePreempted.class);
        assertThat(removed.cause()).isEqualTo("Deadline");
        assertThat(removed.pendingAt()).isEqualTo(pending.pendingAt());
        assertThat(removed.removedAt())
                .isBetween(pending.removeBy(), pending.removeBy().plus(SLACK));

        PreemptionInProgress plainDraining = only(facts, "plain", PreemptionInProgress.class);
        assertThat(plainDraining.gracePeriodSeconds()).isEqualTo(1);
        NodePreempted plainRemoved = only(facts, "plain", NodePreempted.class);
        assertThat(plainRemoved.cause()).isEqualTo("Drained");
        assertThat(plainRemoved.removedAt())
                .isBetween(
                        plainDraining.evictedAt().plusSeconds(1),
                        plainDraining.evictedAt().plusSeconds(1).plus(SLACK));

        List<RecordedEvent> events = PreemptionFacts.events(probe, "demo/spot-full", e -> e.size() >= 6, WAIT);
        for (String node : List.of("stubborn", "plain")) {
            List<RecordedEvent> ofNode = events.stream()
                    .filter(e -> e.involvedObject().equals(ObjectReference.node(node)))
                    .toList();
            assertThat(ofNode)
                    .extracting(RecordedEvent::reason)
                    .containsExactly("Preemption pending", "Preemption in progress", "Deleted for preemption");
            assertThat(ofNode).extracting(RecordedEvent::type).containsOnly("Warning");
            assertThat(ofNode).extracting(RecordedEvent::poolUid).containsOnly("uid-spot-full");
            assertThat(ofNode)
                    .extracting(RecordedEvent::id)
                    .containsExactly(
                            "preemption-service/r-full/" + node + "/PreemptionPending",
                            "preemption-service/r-full/" + node + "/PreemptionInProgress",
                            "preemption-service/r-full/" + node + "/DeletedForPreemption");
        }
    }

    @Test
    void aNodeWhoseWorkloadFinishesDuringTheDrainLeavesBeforeTheDeadline() {
        PoolRef pool = spotPool("spot-early");
        report(pool, "early", true, 30);
        reclaim(pool, "r-early", "early");
        PreemptionFacts.progressed(probe, "demo/spot-early", reached("early", PreemptionInProgress.class), WAIT);

        report(pool, "early", false, null);

        List<PreemptionFact> facts = PreemptionFacts.progressed(probe, "demo/spot-early", preempted("early"), WAIT);
        assertThat(phases(facts)).containsExactly("PreemptionPending", "PreemptionInProgress", "NodePreempted");
        PreemptionPending pending = only(facts, "early", PreemptionPending.class);
        NodePreempted removed = only(facts, "early", NodePreempted.class);
        assertThat(removed.cause()).isEqualTo("Drained");
        assertThat(removed.removedAt())
                .as("well before the T+7s deadline and the 30 s grace")
                .isBefore(pending.removeBy().minusSeconds(3));
    }

    @Test
    void unreadableReclaimRequestsGoToTheDeadLetterTopicAndTheNextOneIsProcessed() {
        probe.send(Topics.SPOT_RECLAIM_REQUESTED.name(), "demo/spot-dlq", "{not json");
        reclaim(spotPool("spot-dlq"), "r-dlq", "after-garbage");

        var dead = probe
                .readUntil(
                        "preemption-service-dlq", r -> r.stream().anyMatch(d -> "demo/spot-dlq".equals(d.key())), WAIT)
                .stream()
                .filter(d -> "demo/spot-dlq".equals(d.key()))
                .toList();
        assertThat(dead).singleElement().satisfies(d -> {
            assertThat(d.value()).isEqualTo("{not json");
            assertThat(d.headers())
                    .containsEntry(DeadLetters.ERROR, "MalformedJson")
                    .containsEntry(DeadLetters.SOURCE_TOPIC, "spot-reclaim-requested")
                    .containsEntry(DeadLetters.SERVICE, "preemption-service")
                    .containsKey(DeadLetters.REASON);
        });
        PreemptionFacts.progressed(probe, "demo/spot-dlq", reached("after-garbage", PreemptionPending.class), WAIT);
    }
}
