package com.coreweave.nodepool.localkafka;

import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may do what on the secured broker, derived from the topic registry: the ACLs of each principal. No one but a
 * topic's writers (its registry entry's owner) writes it; an org writes only its own inbound topics
 * ({@link TenantTopics}); a service owns its Streams application's internal topics, consumer group and transactional
 * ids, all named {@code <service>-...}. docs/security.md shows the same as a table.
 */
public final class KafkaAccess {

    /** The broker itself (its certificate's CN), and the SCRAM user of whoever administers the cluster: super users. */
    public static final String BROKER = "kafka-broker";

    public static final String ADMIN = "kafka-admin";
    /** Operators: set quotas on their topic, read every topic; they act for orgs through the API, not as them. */
    public static final String OPERATOR = "nodepool-operator";
    /** The monitoring system: raises and resolves node alerts. */
    public static final String MONITORING = "monitoring";

    private KafkaAccess() {}

    /**
     * The Kafka client quotas of every org's principal, as the broker names them: bytes a second it may produce and
     * fetch, and the share of one broker thread its requests may take (percent). Past them the broker delays its
     * answers, so one org's flood is slowed and the others' requests keep their turn (docs/security.md, the limits
     * table, has the arithmetic).
     */
    public static final Map<String, Double> TENANT_QUOTAS = Map.of(
            "producer_byte_rate", 1024.0 * 1024,
            "consumer_byte_rate", 2 * 1024.0 * 1024,
            "request_percentage", 25.0);

    /** The principal of an org's platform team. */
    public static String tenant(String org) {
        return TenantTopics.principal(org);
    }

    /** The org whose principal {@code principal} is, or null for any other principal. */
    public static String orgOf(String principal) {
        if (principal.startsWith(TenantTopics.PRINCIPAL_PREFIX)) {
            String org = principal.substring(TenantTopics.PRINCIPAL_PREFIX.length());
            return TenantTopics.validOrg(org) ? org : null;
        }
        return null;
    }

    /** Every topic of the registry, the services' own dead-letter topics included. */
    public static List<Topic<?, ?>> registryTopics() {
        return Stream.concat(Topics.all().stream(), Topics.SERVICES.stream().map(Topics::serviceDeadLetters))
                .toList();
    }

    /**
     * Who writes {@code topic}, from its registry entry's owner: the services it names ("every service": all),
     * {@link #OPERATOR} for "operators", {@link #MONITORING} for "monitoring". Platform teams write their org topics
     * instead ({@link #forPrincipal}).
     */
    public static Set<String> writers(Topic<?, ?> topic) {
        String owner = topic.owner();
        Set<String> writers = new LinkedHashSet<>();
        for (String service : Topics.SERVICES) {
            if (owner.contains("every service") || owner.contains(service)) {
                writers.add(service);
            }
        }
        if (owner.contains("operators")) {
            writers.add(OPERATOR);
        }
        if (owner.contains("monitoring")) {
            writers.add(MONITORING);
        }
        return writers;
    }

    /**
     * The ACLs of {@code principal}: a service, {@link #OPERATOR}, {@link #MONITORING} or {@link #tenant}; none for
     * {@link #ADMIN}, a super user.
     */
    public static List<AclBinding> forPrincipal(String principal) {
        List<AclBinding> acls = new ArrayList<>();
        if (principal.equals(ADMIN)) {
            return acls;
        }
        String org = orgOf(principal);
        if (org != null) {
            for (Topic<?, ?> inbound : TenantTopics.INBOUND) {
                String own = TenantTopics.of(inbound, org);
                // Reading back its own topic lets a team check what it sent; it holds nothing of anyone else.
                allow(acls, principal, ResourceType.TOPIC, own, PatternType.LITERAL, WRITE, DESCRIBE, READ);
            }
            return acls;
        }
        boolean service = Topics.SERVICES.contains(principal);
        if (!service && !principal.equals(OPERATOR) && !principal.equals(MONITORING)) {
            throw new IllegalArgumentException(
                    "'" + principal + "' is not a principal of the system: one of " + Topics.SERVICES + ", " + OPERATOR
                            + ", " + MONITORING + ", " + ADMIN + " or " + TenantTopics.PRINCIPAL_PREFIX + "<org>");
        }
        for (Topic<?, ?> topic : registryTopics()) {
            if (writers(topic).contains(principal)) {
                allow(acls, principal, ResourceType.TOPIC, topic.name(), PatternType.LITERAL, WRITE, DESCRIBE);
            }
            if (service || principal.equals(OPERATOR)) {
                // Services read one another's facts and create the topics they use at start-up (TopicCreator).
                allow(
                        acls,
                        principal,
                        ResourceType.TOPIC,
                        topic.name(),
                        PatternType.LITERAL,
                        READ,
                        DESCRIBE,
                        AclOperation.DESCRIBE_CONFIGS);
            }
            if (service) {
                allow(acls, principal, ResourceType.TOPIC, topic.name(), PatternType.LITERAL, AclOperation.CREATE);
            }
        }
        if (service || principal.equals(OPERATOR)) {
            for (Topic<?, ?> inbound : TenantTopics.INBOUND) {
                String orgTopics = inbound.name() + ".";
                allow(acls, principal, ResourceType.TOPIC, orgTopics, PatternType.PREFIXED, READ, DESCRIBE);
            }
        }
        if (service) {
            // Kafka Streams' internal topics, consumer group and transactional ids all start with the application id.
            allow(acls, principal, ResourceType.TOPIC, principal + "-", PatternType.PREFIXED, AclOperation.ALL);
            allow(acls, principal, ResourceType.GROUP, principal, PatternType.LITERAL, READ, DESCRIBE);
            allow(
                    acls,
                    principal,
                    ResourceType.TRANSACTIONAL_ID,
                    principal + "-",
                    PatternType.PREFIXED,
                    WRITE,
                    DESCRIBE);
        }
        if (principal.equals(OPERATOR)) {
            // kcat's and kafka-console-consumer's groups, for reading dead letters at a committed position.
            allow(acls, principal, ResourceType.GROUP, OPERATOR + "-", PatternType.PREFIXED, AclOperation.READ);
        }
        return List.copyOf(new LinkedHashSet<>(acls));
    }

    private static void allow(
            List<AclBinding> acls,
            String principal,
            ResourceType type,
            String name,
            PatternType pattern,
            AclOperation... operations) {
        for (AclOperation operation : operations) {
            acls.add(new AclBinding(
                    new ResourcePattern(type, name, pattern),
                    new AccessControlEntry("User:" + principal, "*", operation, AclPermissionType.ALLOW)));
        }
    }
}
