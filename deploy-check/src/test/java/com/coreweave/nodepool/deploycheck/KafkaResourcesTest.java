package com.coreweave.nodepool.deploycheck;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.deploycheck.Manifests.Manifest;
import com.coreweave.nodepool.localkafka.KafkaAccess;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.kafka.KafkaAuthorizationSimple;
import io.strimzi.api.kafka.model.kafka.listener.GenericKafkaListener;
import io.strimzi.api.kafka.model.kafka.listener.KafkaListenerAuthenticationScramSha512;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import io.strimzi.api.kafka.model.nodepool.ProcessRoles;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Kafka cluster is the one the services are built for (DESIGN.md §5), its topics are the registry's as the services
 * would create them, and its users may do exactly what they may on the local broker (local-kafka's KafkaAccess). After
 * a change of the registry or of KafkaAccess, RegistryManifestsWriter writes the KafkaTopics and KafkaUsers anew.
 */
class KafkaResourcesTest {

    private static final String REWRITE =
            "; after a change of the registry or KafkaAccess, run RegistryManifestsWriter";

    private final List<Manifest> base = Deployment.base();
    private final Kafka kafka = single(Manifests.all(base, Kafka.class));

    @Test
    void theClusterKeepsEveryRecordOnThreeBrokersAndWritesOnlyWhereTwoHaveIt() {
        Map<String, Object> config = kafka.getSpec().getKafka().getConfig();

        assertThat(config)
                .containsEntry("default.replication.factor", 3)
                .containsEntry("min.insync.replicas", 2)
                .containsEntry("unclean.leader.election.enable", false)
                .containsEntry("offsets.topic.replication.factor", 3)
                .containsEntry("transaction.state.log.replication.factor", 3)
                .containsEntry("transaction.state.log.min.isr", 2);
        assertThat(Deployment.setting("NODEPOOL_KAFKA_REPLICATION_FACTOR")).isEqualTo("3");
        assertThat(Deployment.setting("NODEPOOL_KAFKA_MIN_INSYNC_REPLICAS")).isEqualTo("2");
        List<KafkaNodePool> pools = Manifests.all(base, KafkaNodePool.class);
        assertThat(pools)
                .allSatisfy(pool -> assertThat(pool.getMetadata().getLabels())
                        .containsEntry("strimzi.io/cluster", kafka.getMetadata().getName()));
        assertThat(nodes(pools, ProcessRoles.BROKER)).isGreaterThanOrEqualTo(3);
        assertThat(nodes(pools, ProcessRoles.CONTROLLER)).isGreaterThanOrEqualTo(3);
    }

    @Test
    void clientsLogInWithScramOverTlsAndTheAuthorizerAllowsOnlyWhatAnAclGrants() {
        String bootstrap = Deployment.setting("KAFKA_BOOTSTRAP_SERVERS");
        GenericKafkaListener listener = kafka.getSpec().getKafka().getListeners().stream()
                .filter(l -> bootstrap.equals(kafka.getMetadata().getName() + "-kafka-bootstrap:" + l.getPort()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no listener at " + bootstrap));

        assertThat(listener.isTls()).isTrue();
        assertThat(listener.getAuth()).isInstanceOf(KafkaListenerAuthenticationScramSha512.class);
        assertThat(Deployment.setting("KAFKA_SECURITY_PROTOCOL")).isEqualTo("SASL_SSL");
        assertThat(Deployment.setting("KAFKA_SASL_MECHANISM")).isEqualTo("SCRAM-SHA-512");
        KafkaAuthorizationSimple authorization =
                (KafkaAuthorizationSimple) kafka.getSpec().getKafka().getAuthorization();
        assertThat(authorization.getSuperUsers()).containsExactly(KafkaAccess.ADMIN);
        assertThat(kafka.getSpec().getEntityOperator().getTopicOperator()).isNotNull();
        assertThat(kafka.getSpec().getEntityOperator().getUserOperator()).isNotNull();
    }

    @Test
    void everyTopicOfTheRegistryIsAKafkaTopicAsTheServicesWouldCreateIt() {
        Map<String, KafkaTopic> topics = byName(Manifests.all(base, KafkaTopic.class));
        int partitions = Integer.parseInt(Deployment.setting("NODEPOOL_KAFKA_PARTITIONS"));

        assertThat(topics.keySet())
                .as("KafkaTopics of the base" + REWRITE)
                .containsExactlyInAnyOrderElementsOf(
                        Registry.topics().stream().map(Topic::name).toList());
        for (Topic<?, ?> topic : Registry.topics()) {
            assertTopic(
                    topics.get(topic.name()),
                    topic.name(),
                    Registry.topicConfig(topic, Deployment.setting("NODEPOOL_KAFKA_MIN_INSYNC_REPLICAS")),
                    partitions);
        }
    }

    @Test
    void everyPrincipalOfTheSystemIsAKafkaUserWithExactlyItsAcls() {
        Map<String, KafkaUser> users = byName(Manifests.all(base, KafkaUser.class));
        List<String> principals = new ArrayList<>(Topics.SERVICES);
        principals.addAll(List.of(KafkaAccess.OPERATOR, KafkaAccess.MONITORING, KafkaAccess.ADMIN));

        assertThat(users.keySet())
                .as("KafkaUsers of the base" + REWRITE)
                .containsExactlyInAnyOrderElementsOf(principals);
        users.values().forEach(this::assertUser);
    }

    @Test
    void eachOrgHasItsInboundTopicsAndItsPrincipalOnly() {
        Deployment.orgs().forEach((org, manifests) -> {
            Map<String, KafkaTopic> topics = byName(Manifests.all(manifests, KafkaTopic.class));
            Map<String, Topic<?, ?>> expected = Registry.orgTopics(org);

            assertThat(topics.keySet())
                    .as("org " + org + REWRITE)
                    .containsExactlyInAnyOrderElementsOf(expected.keySet());
            // Any partition count does for an org topic: its records are moved to their key's partition when read.
            expected.forEach((name, inbound) -> assertTopic(
                    topics.get(name),
                    name,
                    Registry.orgTopicConfig(inbound, Deployment.setting("NODEPOOL_KAFKA_MIN_INSYNC_REPLICAS")),
                    topics.get(name).getSpec().getPartitions()));
            List<KafkaUser> users = Manifests.all(manifests, KafkaUser.class);
            assertThat(users).extracting(u -> u.getMetadata().getName()).containsExactly(KafkaAccess.tenant(org));
            users.forEach(this::assertUser);
            assertThat(manifests).extracting(Manifest::kind).containsOnly("Kustomization", "KafkaTopic", "KafkaUser");
        });
    }

    private void assertTopic(KafkaTopic resource, String name, Map<String, String> expected, int partitions) {
        assertThat(resource.getMetadata().getLabels())
                .as(name)
                .containsEntry("strimzi.io/cluster", kafka.getMetadata().getName());
        assertThat(resource.getSpec().getTopicName()).as(name).isNull();
        assertThat(resource.getSpec().getPartitions()).as(name + REWRITE).isEqualTo(partitions);
        assertThat(resource.getSpec().getReplicas())
                .as(name + REWRITE)
                .isEqualTo(Integer.parseInt(Deployment.setting("NODEPOOL_KAFKA_REPLICATION_FACTOR")));
        Map<String, String> config = new TreeMap<>();
        resource.getSpec().getConfig().forEach((key, value) -> config.put(key, String.valueOf(value)));
        assertThat(config).as(name + REWRITE).isEqualTo(new TreeMap<>(expected));
    }

    private void assertUser(KafkaUser user) {
        String name = user.getMetadata().getName();
        assertThat(user.getMetadata().getLabels())
                .as(name)
                .containsEntry("strimzi.io/cluster", kafka.getMetadata().getName());
        assertThat(user.getSpec().getAuthentication())
                .as(name)
                .isInstanceOf(KafkaUserScramSha512ClientAuthentication.class);
        assertThat(Registry.grants(user))
                .as("ACLs of " + name + REWRITE)
                .containsExactlyInAnyOrderElementsOf(Registry.grants(name));
        Map<String, Integer> quotas = new TreeMap<>();
        var set = user.getSpec().getQuotas();
        if (set != null) {
            putIfSet(quotas, "producerByteRate", set.getProducerByteRate());
            putIfSet(quotas, "consumerByteRate", set.getConsumerByteRate());
            putIfSet(quotas, "requestPercentage", set.getRequestPercentage());
        }
        assertThat(quotas).as("client quotas of " + name + REWRITE).isEqualTo(new TreeMap<>(Registry.quotas(name)));
    }

    private static void putIfSet(Map<String, Integer> quotas, String name, Integer value) {
        if (value != null) {
            quotas.put(name, value);
        }
    }

    private static int nodes(List<KafkaNodePool> pools, ProcessRoles role) {
        return pools.stream()
                .filter(p -> p.getSpec().getRoles().contains(role))
                .mapToInt(p -> p.getSpec().getReplicas())
                .sum();
    }

    private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> Map<String, T> byName(List<T> resources) {
        return resources.stream().collect(Collectors.toMap(r -> r.getMetadata().getName(), Function.identity()));
    }

    private static <T> T single(List<T> items) {
        assertThat(items).hasSize(1);
        return items.get(0);
    }
}
