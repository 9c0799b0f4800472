package com.coreweave.nodepool.provisioner.domain.controllers.scaling;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScaleDownSelectorTest {

    static final Instant T0 = Fixtures.T0;

    /** Node {@code n} created {@code n} seconds after T0, so a higher number is a newer node. */
    static PoolNode node(int n, Node.Phase phase, boolean active) {
        Node booting = NodeTemplate.assigned(
                Fixtures.ref(1), Fixtures.spec(1), Fixtures.machine(n), "np-00000000", T0.plusSeconds(n));
        Node node = switch (phase) {
            case Booting -> booting;
            case Registered -> NodeTemplate.registered(booting, T0.plusSeconds(100));
            default -> throw new IllegalArgumentException("not a staying phase: " + phase);
        };
        return PoolNode.assigned(NodeTemplate.withActivity(node, active, T0), Fixtures.grant(n), null);
    }

    static int size(ScaleDownSelector.Selection selection) {
        return selection.removeNow().size() + selection.drain().size();
    }

    static List<String> names(List<PoolNode> nodes) {
        return nodes.stream().map(PoolNode::name).toList();
    }

    final List<PoolNode> pool = List.of(
            node(1, Node.Phase.Registered, false),
            node(2, Node.Phase.Registered, true),
            node(3, Node.Phase.Registered, false),
            node(4, Node.Phase.Registered, true),
            node(5, Node.Phase.Booting, false));

    @Test
    void bootingNodesGoFirstThenIdleOnesNewestFirst() {
        var selection = ScaleDownSelector.select(pool, 3, Lifecycle.IDLE_ONLY, false);

        assertThat(names(selection.removeNow()))
                .containsExactly(Fixtures.machine(5), Fixtures.machine(3), Fixtures.machine(1));
        assertThat(selection.drain()).isEmpty();
    }

    @Test
    void idleOnlyNeverTouchesAnActiveNode() {
        var selection = ScaleDownSelector.select(pool, 5, Lifecycle.IDLE_ONLY, false);

        assertThat(size(selection)).isEqualTo(3);
        assertThat(selection.removeNow()).noneMatch(PoolNode::active);
        assertThat(selection.drain()).isEmpty();
    }

    @Test
    void preferIdleDrainsActiveNodesNewestFirstOnceNoIdleNodeIsLeft() {
        var selection = ScaleDownSelector.select(pool, 4, Lifecycle.PREFER_IDLE, false);

        assertThat(names(selection.removeNow()))
                .containsExactly(Fixtures.machine(5), Fixtures.machine(3), Fixtures.machine(1));
        assertThat(names(selection.drain())).containsExactly(Fixtures.machine(4));
    }

    @Test
    void preferIdleDrainsNothingWhileIdleNodesAreEnough() {
        var selection = ScaleDownSelector.select(pool, 2, Lifecycle.PREFER_IDLE, false);

        assertThat(selection.drain()).isEmpty();
        assertThat(size(selection)).isEqualTo(2);
    }

    @Test
    void aDeletionDrainsActiveNodesWhateverTheStrategy() {
        var selection = ScaleDownSelector.select(pool, 5, Lifecycle.IDLE_ONLY, true);

        assertThat(selection.removeNow()).hasSize(3);
        assertThat(names(selection.drain())).containsExactly(Fixtures.machine(4), Fixtures.machine(2));
    }

    @Test
    void noExcessSelectsNothing() {
        assertThat(size(ScaleDownSelector.select(pool, 0, Lifecycle.PREFER_IDLE, false)))
                .isZero();
        assertThat(size(ScaleDownSelector.select(pool, -2, Lifecycle.PREFER_IDLE, true)))
                .isZero();
    }
}
