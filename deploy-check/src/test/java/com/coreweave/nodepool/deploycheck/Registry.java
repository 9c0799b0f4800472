package com.coreweave.nodepool.deploycheck;

import com.coreweave.nodepool.localkafka.KafkaAccess;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.acl.AclResourcePatternType;
import io.strimzi.api.kafka.model.user.acl.AclRule;
import io.strimzi.api.kafka.model.user.acl.AclRuleClusterResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleGroupResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleTransactionalIdResource;
import io.strimzi.api.kafka.model.user.acl.AclRuleType;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;

/**
 * What the topic registry and the broker's access rules say the cluster must have, in terms a KafkaTopic and a
 * KafkaUser can be compared with: each topic's configuration ({@link Topic#brokerConfig()}, as TopicCreator creates it)
 * and each principal's ACLs ({@link KafkaAccess#forPrincipal}).
 */
final class Registry {

    /** One ACL entry, allowing {@code operation} on a resource from {@code host}, as Kafka names them. */
    record Grant(String resourceType, String resource, String pattern, String operation, String host) {}

    private Registry() {}

    /** Every topic the base creates: the registry's and the services' dead-letter topics. */
    static List<Topic<?, ?>> topics() {
        return KafkaAccess.registryTopics();
    }

    /** An org's inbound topics, by name, with the topic of the registry each stands for. */
    static Map<String, Topic<?, ?>> orgTopics(String org) {
        Map<String, Topic<?, ?>> topics = new LinkedHashMap<>();
        TenantTopics.INBOUND.forEach(inbound -> topics.put(TenantTopics.of(inbound, org), inbound));
        return topics;
    }

    /**
     * A topic's broker configuration with {@code min.insync.replicas}, as TopicCreator's configOf gives it for the
     * services' {@code nodepool.kafka.min-insync-replicas}; every value as text.
     */
    static Map<String, String> topicConfig(Topic<?, ?> topic, String minInsyncReplicas) {
        Map<String, String> config = topic.brokerConfig();
        config.put("min.insync.replicas", minInsyncReplicas);
        return config;
    }

    /** An org topic's broker configuration, as AccessSetup creates it, with {@code min.insync.replicas}. */
    static Map<String, String> orgTopicConfig(Topic<?, ?> inbound, String minInsyncReplicas) {
        Map<String, String> config = TenantTopics.brokerConfig(inbound);
        config.put("min.insync.replicas", minInsyncReplicas);
        return config;
    }

    /**
     * A tenant principal's client quotas as a KafkaUser's {@code spec.quotas} names them (camel case, whole numbers);
     * none for any other principal.
     */
    static Map<String, Integer> quotas(String principal) {
        Map<String, Integer> quotas = new LinkedHashMap<>();
        if (KafkaAccess.orgOf(principal) != null) {
            quotas.put(
                    "producerByteRate",
                    KafkaAccess.TENANT_QUOTAS.get("producer_byte_rate").intValue());
            quotas.put(
                    "consumerByteRate",
                    KafkaAccess.TENANT_QUOTAS.get("consumer_byte_rate").intValue());
            quotas.put(
                    "requestPercentage",
                    KafkaAccess.TENANT_QUOTAS.get("request_percentage").intValue());
        }
        return quotas;
    }

    /** What {@code principal} may do on the broker. */
    static Set<Grant> grants(String principal) {
        Set<Grant> grants = new LinkedHashSet<>();
        for (AclBinding binding : KafkaAccess.forPrincipal(principal)) {
            if (!binding.entry().principal().equals("User:" + principal)
                    || binding.entry().permissionType() != AclPermissionType.ALLOW) {
                throw new IllegalStateException("KafkaAccess gives " + principal + " " + binding);
            }
            grants.add(new Grant(
                    binding.pattern().resourceType().name(),
                    binding.pattern().name(),
                    binding.pattern().patternType().name(),
                    binding.entry().operation().name(),
                    binding.entry().host()));
        }
        return grants;
    }

    /** What a KafkaUser's ACLs allow; a deny rule fails (KafkaAccess has none). */
    static Set<Grant> grants(KafkaUser user) {
        Set<Grant> grants = new LinkedHashSet<>();
        if (user.getSpec().getAuthorization() == null) {
            return grants;
        }
        for (AclRule rule : ((KafkaUserAuthorizationSimple) user.getSpec().getAuthorization()).getAcls()) {
            if (rule.getType() == AclRuleType.DENY) {
                throw new AssertionError("KafkaUser " + user.getMetadata().getName() + " has a deny rule: " + rule);
            }
            String host = rule.getHost() == null ? "*" : rule.getHost();
            for (var operation : rule.getOperations()) {
                grants.add(new Grant(
                        resourceType(rule), resourceName(rule), pattern(rule), kafkaOperation(operation), host));
            }
        }
        return grants;
    }

    private static String resourceType(AclRule rule) {
        return switch (rule.getResource()) {
            case AclRuleTopicResource topic -> "TOPIC";
            case AclRuleGroupResource group -> "GROUP";
            case AclRuleTransactionalIdResource id -> "TRANSACTIONAL_ID";
            case AclRuleClusterResource cluster -> "CLUSTER";
            default -> throw new AssertionError("unknown ACL resource " + rule.getResource());
        };
    }

    private static String resourceName(AclRule rule) {
        return switch (rule.getResource()) {
            case AclRuleTopicResource topic -> topic.getName();
            case AclRuleGroupResource group -> group.getName();
            case AclRuleTransactionalIdResource id -> id.getName();
            case AclRuleClusterResource cluster -> "kafka-cluster";
            default -> throw new AssertionError("unknown ACL resource " + rule.getResource());
        };
    }

    private static String pattern(AclRule rule) {
        AclResourcePatternType pattern = switch (rule.getResource()) {
            case AclRuleTopicResource topic -> topic.getPatternType();
            case AclRuleGroupResource group -> group.getPatternType();
            case AclRuleTransactionalIdResource id -> id.getPatternType();
            default -> AclResourcePatternType.LITERAL;
        };
        // Strimzi's default is literal; Kafka calls a prefix pattern PREFIXED.
        return pattern == AclResourcePatternType.PREFIX ? "PREFIXED" : "LITERAL";
    }

    /** Kafka's name of a Strimzi operation: DescribeConfigs is DESCRIBE_CONFIGS. */
    static String kafkaOperation(io.strimzi.api.kafka.model.user.acl.AclOperation operation) {
        for (AclOperation kafka : AclOperation.values()) {
            if (kafka.name().replace("_", "").equals(operation.name())) {
                return kafka.name();
            }
        }
        throw new AssertionError("no Kafka operation for " + operation);
    }

    /** Strimzi's value of a Kafka operation, as a KafkaUser writes it: DESCRIBE_CONFIGS is DescribeConfigs. */
    static String strimziOperation(String kafkaOperation) {
        return io.strimzi.api.kafka.model.user.acl.AclOperation.valueOf(kafkaOperation.replace("_", ""))
                .toValue();
    }
}
