package com.coreweave.nodepool.localkafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class KafkaAccessTest {

    @Test
    void everyTopicHasAWriterAndOnlyItsOwnersWriteIt() {
        for (Topic<?, ?> topic : KafkaAccess.registryTopics()) {
            assertThat(KafkaAccess.writers(topic)).as(topic.name()).isNotEmpty();
        }
        assertThat(KafkaAccess.writers(Topics.CAPACITY_CHECKED)).containsExactly("capacity-service");
        assertThat(KafkaAccess.writers(Topics.NODEPOOL_STATUS)).containsExactly("nodepool-api-service");
        assertThat(KafkaAccess.writers(Topics.QUOTA_LIMIT_SET))
                .containsExactlyInAnyOrder("quota-service", KafkaAccess.OPERATOR);
        assertThat(KafkaAccess.writers(Topics.NODE_ALERT_RAISED))
                .containsExactlyInAnyOrder("provisioner-service", KafkaAccess.MONITORING);
        assertThat(KafkaAccess.writers(Topics.NODEPOOL_EVENT_RECORDED)).containsExactlyElementsOf(Topics.SERVICES);
        assertThat(KafkaAccess.writers(Topics.serviceDeadLetters("quota-service")))
                .containsExactly("quota-service");
    }

    @Test
    void anOrgWritesOnlyItsOwnInboundTopics() {
        List<AclBinding> acls = KafkaAccess.forPrincipal(KafkaAccess.tenant("demo"));

        assertThat(topicsWith(acls, AclOperation.WRITE))
                .containsExactlyInAnyOrder(
                        "nodepool-requested.demo",
                        "node-activity-reported.demo",
                        "nodepool-configuration-requested.demo",
                        "node-deletion-requested.demo",
                        "workload-pending.demo");
        assertThat(acls).allSatisfy(acl -> {
            assertThat(acl.pattern().patternType()).isEqualTo(PatternType.LITERAL);
            assertThat(acl.pattern().name()).endsWith(".demo");
            assertThat(acl.entry().principal()).isEqualTo("User:tenant-demo");
        });
    }

    @Test
    void aServiceWritesWhatItOwnsAndHoldsItsStreamsNames() {
        List<AclBinding> acls = KafkaAccess.forPrincipal("provisioner-service");

        assertThat(topicsWith(acls, AclOperation.WRITE))
                .contains("nodepool-nodes-changed", "nodepool-requested", "provisioner-service-dlq")
                .doesNotContain("capacity-checked", "nodepool-status", "quota-limit-set");
        assertThat(topicsWith(acls, AclOperation.READ)).contains("capacity-checked", "node-activity-reported.");
        assertThat(acls)
                .anySatisfy(acl -> {
                    assertThat(acl.pattern().resourceType()).isEqualTo(ResourceType.GROUP);
                    assertThat(acl.pattern().name()).isEqualTo("provisioner-service");
                    assertThat(acl.pattern().patternType()).isEqualTo(PatternType.LITERAL);
                })
                .anySatisfy(acl -> {
                    assertThat(acl.pattern().resourceType()).isEqualTo(ResourceType.TRANSACTIONAL_ID);
                    assertThat(acl.pattern().name()).isEqualTo("provisioner-service-");
                    assertThat(acl.pattern().patternType()).isEqualTo(PatternType.PREFIXED);
                });
    }

    @Test
    void operatorsSetQuotasAndReadEverythingButWriteNoFact() {
        List<AclBinding> acls = KafkaAccess.forPrincipal(KafkaAccess.OPERATOR);

        assertThat(topicsWith(acls, AclOperation.WRITE)).containsExactly("quota-limit-set");
        assertThat(topicsWith(acls, AclOperation.READ)).contains("nodepool-status", "nodepool-requested-dlq");
        assertThat(topicsWith(KafkaAccess.forPrincipal(KafkaAccess.MONITORING), AclOperation.WRITE))
                .containsExactly("node-alert-raised");
    }

    @Test
    void anUnknownPrincipalHasNoAccessAndIsAnError() {
        assertThatThrownBy(() -> KafkaAccess.forPrincipal("mallory"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mallory");
        assertThatThrownBy(() -> KafkaAccess.tenant("Not An Org")).isInstanceOf(IllegalArgumentException.class);
        assertThat(KafkaAccess.forPrincipal(KafkaAccess.ADMIN)).isEmpty();
    }

    private static Set<String> topicsWith(List<AclBinding> acls, AclOperation operation) {
        return acls.stream()
                .filter(acl -> acl.pattern().resourceType() == ResourceType.TOPIC)
                .filter(acl -> acl.entry().operation() == operation)
                .map(acl -> acl.pattern().name())
                .collect(Collectors.toSet());
    }
}
