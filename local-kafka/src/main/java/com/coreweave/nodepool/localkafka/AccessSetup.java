package com.coreweave.nodepool.localkafka;

import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
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

    /** {@code principals}: each principal's password. */
    static void apply(Map<String, Object> superUserClient, Map<String, String> principals)
            throws InterruptedException, ExecutionException {
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
                    orgTopics.add(new NewTopic(TenantTopics.of(inbound, org), ORG_TOPIC_PARTITIONS, (short) 1)
                            .configs(inbound.brokerConfig()));
                }
            }
        });
        try (Admin admin = Admin.create(superUserClient)) {
            admin.alterUserScramCredentials(credentials).all().get();
            admin.createAcls(acls).all().get();
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
}
