package com.coreweave.nodepool.provisioner.domain.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeTemplateTest {

    @Test
    void theRegionIsTheZoneWithoutItsLetter() {
        assertThat(NodeTemplate.region("US-EAST-04A")).isEqualTo("US-EAST-04");
        assertThat(NodeTemplate.region("EU-SOUTH-04A")).isEqualTo("EU-SOUTH-04");
        assertThat(NodeTemplate.region("LAB")).isEqualTo("LAB");
    }

    @Test
    void applyingThePoolsMetadataKeepsTheLabelsThePreemptionTimelineSet() {
        Node node = NodeTemplate.assigned(
                Fixtures.ref(1), Fixtures.spec(1), Fixtures.machine(1), "np-00000000", Fixtures.T0);
        Node pending = NodeTemplate.cordonedWithLabel(node, Node.LABEL_PENDING_PREEMPTION, "true");

        Node updated = NodeTemplate.withPoolMetadata(
                pending, Fixtures.ref(2), Fixtures.withLabels(Fixtures.spec(1), Map.of("tier", "gold"), null));

        assertThat(updated.metadata().labels())
                .containsEntry(Node.LABEL_PENDING_PREEMPTION, "true")
                .containsEntry("tier", "gold")
                .doesNotContainKey("team");
        assertThat(updated.spec().unschedulable()).isTrue();
    }

    @Test
    void aConditionKeepsItsTransitionTimeWhileItsStatusStays() {
        Node node = NodeTemplate.assigned(
                Fixtures.ref(1), Fixtures.spec(1), Fixtures.machine(1), "np-00000000", Fixtures.T0);
        Node idleAgain = NodeTemplate.withActivity(node, false, Fixtures.T0.plusSeconds(60));
        Node active = NodeTemplate.withActivity(node, true, Fixtures.T0.plusSeconds(60));

        assertThat(transition(idleAgain)).isEqualTo(Fixtures.T0);
        assertThat(transition(active)).isEqualTo(Fixtures.T0.plusSeconds(60));
    }

    static Instant transition(Node node) {
        return node.status().conditions().stream()
                .filter(c -> c.type().equals(Node.CONDITION_ACTIVE))
                .findFirst()
                .orElseThrow()
                .lastTransitionTime();
    }
}
