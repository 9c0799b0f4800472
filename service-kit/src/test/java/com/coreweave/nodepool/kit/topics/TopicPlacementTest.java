package com.coreweave.nodepool.kit.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TopicPlacementTest {

    @Test
    void oneCopyIsFineOnOneBrokerAndRefusedOnAClusterOfThreeUnlessAskedFor() {
        TopicPlacement single = new TopicPlacement((short) 1, Optional.empty(), false);

        assertThat(single.problem(1)).isEmpty();
        assertThat(single.problem(3))
                .get(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("refusing to create topics with replication factor 1 on a cluster of 3 brokers")
                .contains("nodepool.kafka.allow-unreplicated=true");
        assertThat(new TopicPlacement((short) 1, Optional.empty(), true).problem(3))
                .isEmpty();
    }

    @Test
    void aReplicationFactorTheClusterCannotPlaceOrAnImpossibleMinIsrIsAnError() {
        assertThat(new TopicPlacement((short) 3, Optional.of(2), false).problem(3))
                .isEmpty();
        assertThat(new TopicPlacement((short) 3, Optional.of(2), false).problem(1))
                .get(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("needs as many brokers, but the cluster has 1");
        assertThat(new TopicPlacement((short) 3, Optional.of(4), false).problem(3))
                .get(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains("min-insync-replicas must be between 1 and the replication factor (3), not 4");
        assertThat(new TopicPlacement((short) 0, Optional.empty(), false).problem(3))
                .isPresent();
    }

    @Test
    void itSaysHowTopicsAreReplicated() {
        assertThat(new TopicPlacement((short) 3, Optional.of(2), false).describe())
                .isEqualTo("replication factor 3, min.insync.replicas 2");
        assertThat(new TopicPlacement((short) 1, Optional.empty(), false).describe())
                .isEqualTo("replication factor 1, the broker's min.insync.replicas");
    }
}
