package com.coreweave.nodepool.schema.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicBrokerConfigTest {

    @Test
    void aCompactedTopicKeepsEveryKeyForever() {
        assertThat(Topics.NODEPOOL_STATUS.brokerConfig()).isEqualTo(Map.of("cleanup.policy", "compact"));
    }

    @Test
    void aDeletedTopicKeepsRecordsForItsRetention() {
        assertThat(Topics.NODEPOOL_REQUESTED.brokerConfig())
                .isEqualTo(Map.of("cleanup.policy", "delete", "retention.ms", "604800000"));
    }

    @Test
    void eachCallGivesAMapOfItsOwn() {
        Map<String, String> config = Topics.NODEPOOL_REQUESTED.brokerConfig();
        config.put("min.insync.replicas", "2");
        assertThat(Topics.NODEPOOL_REQUESTED.brokerConfig()).doesNotContainKey("min.insync.replicas");
    }
}
