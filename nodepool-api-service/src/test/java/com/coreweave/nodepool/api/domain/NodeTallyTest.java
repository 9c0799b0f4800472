package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.beingRemoved;
import static com.coreweave.nodepool.api.domain.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.resource.Node;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class NodeTallyTest {

    @Test
    void movingTheCountsNodeByNodeGivesWhatCountingThemAllGives() {
        Random random = new Random(25);
        List<Node.Phase> phases = List.of(Node.Phase.Booting, Node.Phase.Registered, Node.Phase.Draining);
        Map<String, Node> nodes = new TreeMap<>();
        NodeTally tally = NodeTally.NONE;
        for (int step = 0; step < 5_000; step++) {
            String name = "n-" + random.nextInt(300);
            Node after = switch (random.nextInt(6)) {
                case 0 -> null;
                case 1 -> beingRemoved(name);
                default ->
                    node(name, phases.get(random.nextInt(phases.size())), random.nextBoolean() ? "np-a" : "np-b");
            };
            Node before = after == null ? nodes.remove(name) : nodes.put(name, after);
            tally = tally.replacing(before, after);
            assertThat(tally).as("after step %d", step).isEqualTo(NodeTally.of(nodes.values()));
        }
    }

    @Test
    void nodesOnAnotherConfigurationAreOutdated() {
        NodeTally tally = NodeTally.of(List.of(
                node("a", Node.Phase.Registered, "np-1"),
                node("b", Node.Phase.Registered, "np-2"),
                node("c", Node.Phase.Booting, "np-2")));

        assertThat(tally.outdated("np-2")).isEqualTo(1);
        assertThat(tally.outdated("np-3")).isEqualTo(3);
        assertThat(tally.current()).isEqualTo(2);
        assertThat(tally.inProgress()).isEqualTo(1);
    }
}
