package com.coreweave.nodepool.schema.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TenantTopicsTest {

    @Test
    void anOrgTopicNamesItsOrgAndMatchesThePattern() {
        String name = TenantTopics.of(Topics.NODEPOOL_REQUESTED, "demo");

        assertThat(name).isEqualTo("nodepool-requested.demo");
        assertThat(TenantTopics.orgOf(Topics.NODEPOOL_REQUESTED, name)).contains("demo");
        assertThat(TenantTopics.pattern(Topics.NODEPOOL_REQUESTED).matcher(name).matches())
                .isTrue();
        assertThat(TenantTopics.orgOf(Topics.NODEPOOL_REQUESTED, TenantTopics.of(Topics.NODEPOOL_REQUESTED, "a.b-c")))
                .contains("a.b-c");
        assertThat(TenantTopics.principal("demo")).isEqualTo("tenant-demo");
    }

    @Test
    void theSharedTopicItsDeadLettersAndOtherTopicsNameNoOrg() {
        for (String name : new String[] {
            "nodepool-requested",
            "nodepool-requested-dlq",
            "nodepool-requested.",
            "nodepool-requested.Demo",
            "nodepool-requested.demo/x",
            "node-activity-reported.demo"
        }) {
            assertThat(TenantTopics.orgOf(Topics.NODEPOOL_REQUESTED, name))
                    .as(name)
                    .isEmpty();
            assertThat(TenantTopics.pattern(Topics.NODEPOOL_REQUESTED)
                            .matcher(name)
                            .matches())
                    .as(name)
                    .isFalse();
        }
    }

    @Test
    void anInvalidOrgHasNoTopic() {
        assertThatThrownBy(() -> TenantTopics.of(Topics.NODEPOOL_REQUESTED, "Other_org"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TenantTopics.of(Topics.NODEPOOL_REQUESTED, "a".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
