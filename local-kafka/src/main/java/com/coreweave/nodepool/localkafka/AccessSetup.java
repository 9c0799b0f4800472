package com.coreweave.nodepool.localkafka;

import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;

/**
 * Makes the secured broker's principals real, as an operator onboarding them would: a SCRAM-SHA-512 credential per
 * principal, its ACLs ({@link KafkaAccess}), and for an org's principal its inbound topics ({@link TenantTopics}) and
 * its client quotas ({@link KafkaAccess#TENANT_QUOTAS}). Idempotent: run on every start, it sets the passwords and
 * quotas given, adds what is missing, and sets the registry's configuration on the topics that exist, so a broker
 * started again on older data gets the current bounds without a reset.
 */
final class AccessSetup {

    /** As the shared topics: records of one org topic may arrive on any partition and are moved by key anyway. */
    static final int ORG_TOPIC_PARTITIONS = 3;

    private static final int SCRAM_ITERATIONS = 4096;

    private AccessSetup() {}

    /** How long a node of a cluster waits for the others before it gives up on making the org topics. */
    private static final Duration CLUSTER_FORMING = Duration.ofSeconds(120);

    /**
     * {@code principals}: each principal's password; {@code nodes}: the cluster's size, which the org topics are
     * replicated over as every other topic (three replicas from three nodes on), once that many brokers are up.
     */
    static void apply(Map<String, Object> superUserClient, Map<String, String> principals, int nodes)
            throws InterruptedException, ExecutionException {
        short replicas = (short) (nodes >= 3 ? 3 : 1);
        List<UserScramCredentialAlteration> credentials = new ArrayList<>();
        List<AclBinding> acls = new ArrayList<>();
        List<NewTopic> orgTopics = new ArrayList<>();
        List<ClientQuotaAlteration> quotas = new ArrayList<>();
        principals.forEach((principal, password) -> {
            credentials.add(new UserScramCredentialUpsertion(
                    principal, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), password));
            acls.addAll(KafkaAccess.forPrincipal(principal));
            String org = KafkaAccess.orgOf(principal);
            if (org != null) {
                for (Topic<?, ?> inbound : TenantTopics.INBOUND) {
                    orgTopics.add(new NewTopic(TenantTopics.of(inbound, org), ORG_TOPIC_PARTITIONS, replicas)
                            .configs(TenantTopics.brokerConfig(inbound)));
                }
                quotas.add(quota(principal));
            }
        });
        try (Admin admin = Admin.create(superUserClient)) {
            admin.alterUserScramCredentials(credentials).all().get();
            admin.createAcls(acls).all().get();
            admin.alterClientQuotas(quotas).all().get();
            awaitBrokers(admin, replicas);
            for (var created : admin.createTopics(orgTopics).values().values()) {
                try {
                    created.get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            alignConfigs(admin, orgTopics);
        }
    }

    /** The principal's client quotas, as a user entity's: they follow it on every connection. */
    static ClientQuotaAlteration quota(String principal) {
        List<ClientQuotaAlteration.Op> ops = new ArrayList<>();
        KafkaAccess.TENANT_QUOTAS.forEach((key, value) -> ops.add(new ClientQuotaAlteration.Op(key, value)));
        return new ClientQuotaAlteration(new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, principal)), ops);
    }

    /** Sets the configuration the registry gives each existing topic (org topics and the registry's). */
    private static void alignConfigs(Admin admin, List<NewTopic> orgTopics)
            throws InterruptedException, ExecutionException {
        Map<String, Map<String, String>> wanted = new HashMap<>();
        KafkaAccess.registryTopics().forEach(topic -> wanted.put(topic.name(), topic.brokerConfig()));
        orgTopics.forEach(topic -> wanted.put(topic.name(), topic.configs()));
        Set<String> existing = admin.listTopics().names().get();
        Map<ConfigResource, Collection<AlterConfigOp>> changes = new HashMap<>();
        wanted.forEach((name, config) -> {
            if (existing.contains(name)) {
                changes.put(
                        new ConfigResource(ConfigResource.Type.TOPIC, name),
                        config.entrySet().stream()
                                .map(e -> new AlterConfigOp(
                                        new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                                .toList());
            }
        });
        if (!changes.isEmpty()) {
            admin.incrementalAlterConfigs(changes).all().get();
        }
    }

    private static void awaitBrokers(Admin admin, int brokers) throws InterruptedException, ExecutionException {
        Instant deadline = Instant.now().plus(CLUSTER_FORMING);
        while (admin.describeCluster().nodes().get().size() < brokers) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(
                        "fewer than " + brokers + " brokers joined the cluster within " + CLUSTER_FORMING);
            }
            Thread.sleep(200);
        }
    }
}
