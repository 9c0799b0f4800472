package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.NOW;
import static com.coreweave.nodepool.api.domain.Fixtures.accepted;
import static com.coreweave.nodepool.api.domain.Fixtures.node;
import static com.coreweave.nodepool.api.domain.Fixtures.nodes;
import static com.coreweave.nodepool.api.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.Node;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PoolViewPartsTest {

    private final PoolView whole = PoolView.of(accepted(spec().targetNodes(2).build()))
            .withNodes(nodes(node("n-1", Node.Phase.Registered, "np-1"), node("n-2", Node.Phase.Booting, "np-1")))
            .withPreemptions(List.of(new PoolView.Preemption(
                    "n-0", NOW, NOW.plusSeconds(60), NOW.plusSeconds(420), null, NOW.plusSeconds(400), "Preempted")));

    @Test
    void aViewIsStoredAsAHeadThatDoesNotGrowAndAPartPerNodeAndPreemption() {
        assertThat(whole.parts()).containsOnlyKeys("n/n-1", "n/n-2", "p/n-0/" + NOW.toEpochMilli());
        assertThat(whole.head().nodes()).isEmpty();
        assertThat(whole.head().preemptions()).isEmpty();
        assertThat(PoolView.joined(whole.head(), whole.parts())).isEqualTo(whole);
    }

    @Test
    void theHeadOfAThousandNodePoolWeighsWhatTheHeadOfAOneNodePoolDoes() {
        PoolView one = whole.withNodes(nodes(node("n-1", Node.Phase.Registered, "np-1")));
        PoolView thousand = whole.withNodes(nodes(IntStream.range(0, 1000)
                .mapToObj(i -> node("n-" + i, Node.Phase.Registered, "np-1"))
                .toArray(Node[]::new)));

        assertThat(Json.bytes(thousand.head()).length).isEqualTo(Json.bytes(one.head()).length);
        assertThat(thousand.parts()).hasSize(1001);
    }
}
