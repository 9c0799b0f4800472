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
        assertThat(Topics.NODEPOOL_ACCEPTED.brokerConfig()).isEqualTo(Map.of("cleanup.policy", "compact"));
        assertThat(Topics.QUOTA_DEMANDED.brokerConfig())
                .isEqualTo(Map.of("cleanup.policy", "delete", "retention.ms", "604800000"));
    }

    @Test
    void aTopicOutsidePartiesWriteIsStampedByTheBrokerAndBoundedInBytes() {
        assertThat(Topics.NODEPOOL_REQUESTED.brokerConfig())
                .isEqualTo(Map.of(
                        "cleanup.policy", "delete",
                        "retention.ms", "604800000",
                        "message.timestamp.type", "LogAppendTime",
                        "retention.bytes", "1073741824"));
        assertThat(Topics.QUOTA_LIMIT_SET.brokerConfig())
                .as("compacted: every key kept, whatever its size, but stamped by the broker")
                .isEqualTo(Map.of("cleanup.policy", "compact", "message.timestamp.type", "LogAppendTime"));
    }

    @Test
    void anOrgsTopicKeepsItsShareOfTheDiskInSegmentsSmallEnoughToDelete() {
        assertThat(TenantTopics.brokerConfig(Topics.WORKLOAD_PENDING))
                .isEqualTo(Map.of(
                        "cleanup.policy", "delete",
                        "retention.ms", "604800000",
                        "message.timestamp.type", "LogAppendTime",
                        "retention.bytes", "16777216",
                        "segment.bytes", "4194304"));
    }

    @Test
    void theAuditTrailIsKeptForNinetyDays() {
        assertThat(Topics.AUDIT_EVENTS.brokerConfig())
                .isEqualTo(Map.of("cleanup.policy", "delete", "retention.ms", Long.toString(90L * 24 * 3600 * 1000)));
    }

    @Test
    void eachCallGivesAMapOfItsOwn() {
        Map<String, String> config = Topics.NODEPOOL_REQUESTED.brokerConfig();
        config.put("min.insync.replicas", "2");
        assertThat(Topics.NODEPOOL_REQUESTED.brokerConfig()).doesNotContainKey("min.insync.replicas");
    }
}
