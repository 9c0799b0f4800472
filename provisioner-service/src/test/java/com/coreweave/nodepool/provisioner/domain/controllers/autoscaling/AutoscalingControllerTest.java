package com.coreweave.nodepool.provisioner.domain.controllers.autoscaling;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.accepted;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.activity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.capacity;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.PoolDriver;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The autoscaler of a pool with {@code autoscaling: true}, on the provisioner's busy/idle reports. */
class AutoscalingControllerTest {

    static final Duration BOOT = Duration.ofSeconds(10);
    static final Duration UP = ProvisioningPolicy.SCALE_UP_AFTER;
    static final Duration DOWN = ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME;

    PoolDriver pool = new PoolDriver(policy(BOOT));

    static NodePoolSpec autoscaled(int target, int min, int max) {
        NodePoolSpec s = Fixtures.spec(target);
        return new NodePoolSpec(
                s.computeClass(),
                s.instanceType(),
                target,
                min,
                max,
                s.nodeLabels(),
                s.nodeAnnotations(),
                s.nodeTaints(),
                null,
                null,
                true,
                s.lifecycle(),
                null,
                s.region());
    }

    PoolDriver registered(NodePoolSpec spec, long generation) {
        pool.spec(accepted(spec, generation));
        pool.grants(capacity(
                generation,
                IntStream.rangeClosed(1, spec.targetNodes())
                        .mapToObj(Fixtures::grant)
                        .toArray(Grant[]::new)));
        return pool.tick(BOOT);
    }

    List<CloudEvent<NodePoolRequested>> requests() {
        return pool.last.requests();
    }

    static int target(CloudEvent<NodePoolRequested> request) {
        return request.data().nodePool().spec().targetNodes();
    }

    @Test
    void whenEveryNodeHasBeenBusyLongEnoughItAsksTheApiForOneMoreNodeOnceWithTheResourceVersionAsPrecondition() {
        registered(autoscaled(2, 1, 3), 1);
        pool.report(activity(1, true, null)).report(activity(2, true, null));
        assertThat(requests()).isEmpty();
        assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(UP));

        pool.tick(UP);

        assertThat(requests()).singleElement().satisfies(request -> {
            assertThat(target(request)).isEqualTo(3);
            assertThat(request.source()).isEqualTo(ScaleRequests.SOURCE);
            assertThat(request.data().operation()).isEqualTo(NodePoolRequested.Operation.APPLY);
            assertThat(request.data().nodePool().metadata().resourceVersion()).isEqualTo("rv-1");
            assertThat(request.data().nodePool().spec().withTargetNodes(2)).isEqualTo(autoscaled(2, 1, 3));
        });
        assertThat(pool.lastReasons()).containsExactly("TriggeredScaleUp");
        assertThat(pool.tick(UP).last.requests())
                .as("once per version of the pool")
                .isEmpty();
    }

    @Test
    void aRequestRefusedBecauseTheUserWroteThePoolMeanwhileIsAskedAgainOnItsNextVersion() {
        registered(autoscaled(2, 1, 3), 1);
        pool.report(activity(1, true, null)).report(activity(2, true, null)).tick(UP);
        assertThat(pool.requestsSoFar()).hasSize(1);

        // A labels-only write: a new resourceVersion, the same generation; the autoscaler's APPLY lost the race.
        var relabelled = accepted(autoscaled(2, 1, 3), 1);
        var meta = relabelled.nodePool().metadata();
        pool.spec(new NodePoolAccepted(
                relabelled.org(),
                NodePool.of(
                        new ObjectMeta(
                                meta.name(),
                                meta.uid(),
                                meta.generation(),
                                "rv-1b",
                                meta.creationTimestamp(),
                                null,
                                Map.of("team", "vision"),
                                null),
                        relabelled.nodePool().spec(),
                        null),
                relabelled.validation(),
                relabelled.acceptedAt()));

        assertThat(requests()).singleElement().satisfies(request -> {
            assertThat(target(request)).isEqualTo(3);
            assertThat(request.data().nodePool().metadata().resourceVersion()).isEqualTo("rv-1b");
            assertThat(request.data().nodePool().metadata().labels()).containsEntry("team", "vision");
        });
    }

    @Test
    void itNeverGoesBeyondMaxNodesNorAsksWhileNodesStillBootOrAnyIsIdle() {
        registered(autoscaled(2, 1, 2), 1);
        pool.report(activity(1, true, null)).report(activity(2, true, null)).tick(UP.multipliedBy(2));
        assertThat(pool.requestsSoFar()).isEmpty();

        registered(autoscaled(3, 1, 4), 2);
        pool.report(activity(1, true, null)).report(activity(2, true, null));
        pool.tick(UP);
        assertThat(pool.requestsSoFar()).as("one node idle").isEmpty();
    }

    @Test
    void nodesIdleForTheUnneededTimeAreTakenOffTheTargetDownToMinNodes() {
        registered(autoscaled(3, 2, 3), 1);
        assertThat(pool.state.wakeAt()).isEqualTo(pool.now.plus(DOWN));

        pool.tick(DOWN);

        assertThat(requests())
                .singleElement()
                .satisfies(request -> assertThat(target(request)).isEqualTo(2));
        assertThat(pool.lastReasons()).containsExactly("ScaleDown");
    }

    @Test
    void aPoolWithoutAutoscalingIsLeftAlone() {
        registered(Fixtures.spec(2), 1);
        pool.tick(DOWN.multipliedBy(2));

        assertThat(pool.requestsSoFar()).isEmpty();
        assertThat(pool.state.wakeAt()).isNull();
    }
}
