package com.coreweave.nodepool.deploycheck;

import com.coreweave.nodepool.localkafka.KafkaAccess;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the KafkaTopics and KafkaUsers of the deployment from the topic registry and KafkaAccess: kafka/topics.yaml,
 * kafka/users.yaml and orgs/&lt;org&gt;/org.yaml for each org folder. Runs only when asked, after a change of the
 * registry or the access rules (the checks say when):
 *
 * <pre>./mvnw -o -B -pl deploy-check -am test -Dtest=RegistryManifestsWriter -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Ddeploy-check.write=true</pre>
 */
@EnabledIfSystemProperty(named = "deploy-check.write", matches = "true")
class RegistryManifestsWriter {

    /** The Kafka resource's name (kafka/kafka.yaml), which every KafkaTopic and KafkaUser names in its label. */
    static final String CLUSTER = "nodepool";

    /** As local-kafka's AccessSetup: records of an org topic are moved to their key's partition anyway. */
    static final int ORG_TOPIC_PARTITIONS = 3;

    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build();

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static final String TOPICS_HEADER = """
# Every topic of the registry (events-schema Topics.all() and each service's dead-letter topic), made by
# Strimzi's Topic Operator with the partitions the services are configured with (NODEPOOL_KAFKA_PARTITIONS
# in services/settings.yaml), replicated three times, and the configuration TopicCreator gives them.
""";

    private static final String USERS_HEADER = """
# The principals of the system (docs/security.md, "Kafka principals and ACLs"): each service, the operators,
# monitoring, and kafka-admin, a super user (kafka/kafka.yaml) with no ACLs. Each logs in with SCRAM-SHA-512;
# Strimzi's User Operator keeps the password and a ready sasl.jaas.config in a Secret of the user's name.
# The ACLs are exactly local-kafka's KafkaAccess.forPrincipal (deploy-check compares them).
""";

    private static final String WRITTEN_BY = """
# Written by deploy-check's RegistryManifestsWriter: change the registry or KafkaAccess, then run it.
""";

    private static final String ORG_HEADER = """
# Org "%s": its inbound topics <topic>.%s, replicated and kept as the shared topic each stands for (bounded in
# bytes, stamped by the broker), and its principal %s, who alone may write them, within its client quotas
# (docs/security.md, "The org is bound to the principal").
""";

    @Test
    void writesTheKafkaResourcesOfTheRegistry() throws IOException {
        int partitions = Integer.parseInt(Deployment.setting("NODEPOOL_KAFKA_PARTITIONS"));
        int replicas = Integer.parseInt(Deployment.setting("NODEPOOL_KAFKA_REPLICATION_FACTOR"));
        String minInsyncReplicas = Deployment.setting("NODEPOOL_KAFKA_MIN_INSYNC_REPLICAS");

        List<JsonNode> topics = new ArrayList<>();
        for (Topic<?, ?> topic : Registry.topics()) {
            topics.add(topic(topic.name(), partitions, replicas, Registry.topicConfig(topic, minInsyncReplicas)));
        }
        write(Deployment.KUBERNETES.resolve("kafka/topics.yaml"), TOPICS_HEADER, topics);

        List<JsonNode> users = new ArrayList<>();
        List<String> principals = new ArrayList<>(Topics.SERVICES);
        principals.addAll(List.of(KafkaAccess.OPERATOR, KafkaAccess.MONITORING, KafkaAccess.ADMIN));
        principals.forEach(principal -> users.add(user(principal)));
        write(Deployment.KUBERNETES.resolve("kafka/users.yaml"), USERS_HEADER, users);

        for (String org : Deployment.orgs().keySet()) {
            List<JsonNode> onboarding = new ArrayList<>();
            Registry.orgTopics(org)
                    .forEach((name, inbound) -> onboarding.add(topic(
                            name,
                            ORG_TOPIC_PARTITIONS,
                            replicas,
                            Registry.orgTopicConfig(inbound, minInsyncReplicas))));
            onboarding.add(user(KafkaAccess.tenant(org)));
            write(
                    Deployment.ORGS.resolve(org).resolve("org.yaml"),
                    ORG_HEADER.formatted(org, org, TenantTopics.principal(org)),
                    onboarding);
        }
    }

    private static JsonNode topic(String name, int partitions, int replicas, Map<String, String> config) {
        ObjectNode spec = NODES.objectNode().put("partitions", partitions).put("replicas", replicas);
        ObjectNode configNode = spec.putObject("config");
        config.forEach((key, value) -> {
            if (value.matches("-?[0-9]+")) {
                configNode.put(key, Long.parseLong(value));
            } else {
                configNode.put(key, value);
            }
        });
        return resource("KafkaTopic", name, spec);
    }

    private static JsonNode user(String principal) {
        ObjectNode spec = NODES.objectNode();
        spec.putObject("authentication").put("type", "scram-sha-512");
        Map<String, Integer> quotas = Registry.quotas(principal);
        if (!quotas.isEmpty()) {
            ObjectNode quotaNode = spec.putObject("quotas");
            quotas.forEach(quotaNode::put);
        }
        // One rule per resource, with its operations in KafkaAccess's order.
        Map<Registry.Grant, List<String>> rules = new LinkedHashMap<>();
        for (Registry.Grant grant : Registry.grants(principal)) {
            Registry.Grant resource =
                    new Registry.Grant(grant.resourceType(), grant.resource(), grant.pattern(), "", grant.host());
            rules.computeIfAbsent(resource, r -> new ArrayList<>()).add(grant.operation());
        }
        if (!rules.isEmpty()) {
            ObjectNode authorization = spec.putObject("authorization").put("type", "simple");
            ArrayNode acls = authorization.putArray("acls");
            rules.forEach((resource, operations) -> {
                ObjectNode rule = acls.addObject();
                rule.putObject("resource")
                        .put("type", strimziResourceType(resource.resourceType()))
                        .put("name", resource.resource())
                        .put("patternType", resource.pattern().equals("PREFIXED") ? "prefix" : "literal");
                ArrayNode ops = rule.putArray("operations");
                operations.forEach(operation -> ops.add(Registry.strimziOperation(operation)));
                rule.put("host", resource.host());
            });
        }
        return resource("KafkaUser", principal, spec);
    }

    private static String strimziResourceType(String kafkaType) {
        return switch (kafkaType) {
            case "TOPIC" -> "topic";
            case "GROUP" -> "group";
            case "TRANSACTIONAL_ID" -> "transactionalId";
            case "CLUSTER" -> "cluster";
            default -> throw new IllegalArgumentException("no Strimzi ACL resource for " + kafkaType);
        };
    }

    private static JsonNode resource(String kind, String name, ObjectNode spec) {
        ObjectNode resource =
                NODES.objectNode().put("apiVersion", "kafka.strimzi.io/v1beta2").put("kind", kind);
        resource.putObject("metadata").put("name", name).putObject("labels").put("strimzi.io/cluster", CLUSTER);
        resource.set("spec", spec);
        return resource;
    }

    private static void write(Path file, String header, List<JsonNode> documents) throws IOException {
        StringBuilder text = new StringBuilder(header).append(WRITTEN_BY);
        for (JsonNode document : documents) {
            text.append(YAML.writeValueAsString(document));
        }
        Files.writeString(file, text.toString());
    }
}
