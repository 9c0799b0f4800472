package com.coreweave.nodepool.localkafka;

import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Makes the secured broker's principals real, as an operator onboarding them would: a SCRAM-SHA-512 credential per
 * principal, its ACLs ({@link KafkaAccess}), and for an org's principal its inbound topics ({@link TenantTopics}).
 * Idempotent: run on every start, it sets the passwords given and adds what is missing.
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
        principals.forEach((principal, password) -> {
            credentials.add(new UserScramCredentialUpsertion(
                    principal, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, SCRAM_ITERATIONS), password));
            acls.addAll(KafkaAccess.forPrincipal(principal));
            String org = KafkaAccess.orgOf(principal);
            if (org != null) {
                for (Topic<?, ?> inbound : TenantTopics.INBOUND) {
                    // An org topic keeps its records as long as the shared topic it stands for.
                    orgTopics.add(new NewTopic(TenantTopics.of(inbound, org), ORG_TOPIC_PARTITIONS, replicas)
                            .configs(inbound.brokerConfig()));
                }
            }
        });
        try (Admin admin = Admin.create(superUserClient)) {
            admin.alterUserScramCredentials(credentials).all().get();
            admin.createAcls(acls).all().get();
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
