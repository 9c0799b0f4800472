package com.coreweave.nodepool.provisioner.streams;

import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.BOOT;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.T0;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.grants;
import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.pool;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.provisioner.domain.PoolInput;
import com.coreweave.nodepool.provisioner.domain.PoolReconciler;
import com.coreweave.nodepool.provisioner.domain.controllers.health.AlertCatalogue;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A pool's state as its two stores hold it: a head that does not grow with the pool, and one member per part. */
class PoolShapeTest {

    final PoolShape shape = new PoolShape();
    final JsonSerde<PoolState> heads = JsonSerde.of(PoolState.class);
    final JsonSerde<PoolMember> members = JsonSerde.of(PoolMember.class);

    /** Two registered nodes of three grants; the third was declined, so its id is released. */
    static PoolState registeredPool() {
        var policy = new ProvisioningPolicy(
                BOOT,
                0.0,
                0,
                Set.of(),
                3,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
        var reconciler = new PoolReconciler(policy, AlertCatalogue.standard());
        PoolState state = reconciler
                .handle(null, new PoolInput.SpecAccepted(pool(2)), T0, NodeReleases.INITIAL)
                .state();
        state = reconciler
                .handle(
                        state,
                        new PoolInput.GrantsChecked(
                                grants(new Grant("m-1", 11), new Grant("m-2", 12), new Grant("m-3", 13))),
                        T0,
                        NodeReleases.INITIAL)
                .state();
        return reconciler.reconcile(state, T0.plus(BOOT), NodeReleases.INITIAL).state();
    }

    @Test
    void eachNodeGrantAndReleasedGrantIsAMemberOfItsOwnAndTheHeadHoldsNoneOfThem() {
        PoolState state = registeredPool();

        assertThat(shape.members(state)).containsOnlyKeys("n/m-1", "n/m-2", "g/11", "g/12", "g/13", "r/13");
        assertThat(shape.members(state).get("n/m-1").node().phase()).isEqualTo(Node.Phase.Registered);
        PoolState head = shape.head(state);
        assertThat(head.nodes()).isEmpty();
        assertThat(head.capacity().grants()).isEmpty();
        assertThat(head.releasedGrants()).isEmpty();
        assertThat(head.lastReconciled().currentNodes()).isEqualTo(2);
    }

    @Test
    void aPoolReadBackFromTheJsonOfItsHeadAndMembersIsTheSamePool() {
        PoolState state = registeredPool();

        PoolState head = heads.deserializer().deserialize("", heads.serializer().serialize("", shape.head(state)));
        SortedMap<String, PoolMember> stored = new TreeMap<>();
        shape.members(state)
                .forEach((id, member) -> stored.put(
                        id,
                        members.deserializer()
                                .deserialize("", members.serializer().serialize("", member))));

        assertThat(shape.join(head, stored)).isEqualTo(state);
    }

    @Test
    void grantsAreReadBackInTheOrderOfTheirIdsAsTheLedgerListsThem() {
        PoolState state = registeredPool();
        SortedMap<String, PoolMember> stored = new TreeMap<>(Map.of(
                "g/100", PoolMember.of(new Grant("m-100", 100)),
                "g/99", PoolMember.of(new Grant("m-99", 99)),
                "r/100", PoolMember.released(100),
                "r/99", PoolMember.released(99)));

        PoolState joined = shape.join(shape.head(state), stored);

        assertThat(joined.capacity().grants()).extracting(Grant::grantId).containsExactly(99L, 100L);
        assertThat(joined.releasedGrants()).containsExactly(99L, 100L);
    }
}
