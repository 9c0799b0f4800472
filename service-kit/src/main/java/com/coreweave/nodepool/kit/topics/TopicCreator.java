package com.coreweave.nodepool.kit.topics;

import com.coreweave.nodepool.kit.kafka.KafkaSecurity;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.jboss.logging.Logger;

/**
 * Creates the topics a service uses before its Streams topology starts (the broker never auto-creates topics). Every
 * service asks for the topics it reads as well as those it owns, with the configuration from the one registry, so
 * start-up order between services does not matter.
 */
@ApplicationScoped
public class TopicCreator {

    private static final Logger LOG = Logger.getLogger(TopicCreator.class);

    @Inject
    KafkaSettings settings;

    @Inject
    KafkaSecurity security;

    void onStart(@Observes StartupEvent event) {
        ensure(resolve(settings.topics()));
    }

    /** The registry entries of the named topics; an unknown name is a configuration error. */
    static List<Topic<?, ?>> resolve(List<String> names) {
        Map<String, Topic<?, ?>> known = new HashMap<>();
        Topics.all().forEach(t -> known.put(t.name(), t));
        List<Topic<?, ?>> topics = new ArrayList<>();
        for (String name : names) {
            Topic<?, ?> topic = known.get(name);
            if (topic == null && name.endsWith("-dlq")) {
                topic = Topics.serviceDeadLetters(name.substring(0, name.length() - "-dlq".length()));
            }
            if (topic == null) {
                throw new IllegalArgumentException("nodepool.kafka.topics names '" + name
                        + "', which is not a topic of " + "the registry (com.coreweave.nodepool.schema.topics.Topics)");
            }
            topics.add(topic);
        }
        return topics;
    }

    /** The broker-side configuration of one topic (its registry entry's), replicated as {@code placement} says. */
    static Map<String, String> configOf(Topic<?, ?> topic, TopicPlacement placement) {
        Map<String, String> config = topic.brokerConfig();
        placement
                .minInsyncReplicas()
                .ifPresent(m -> config.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(m)));
        return config;
    }

    /** The admin client's configuration: the brokers and {@code security}'s settings. */
    public static Map<String, Object> adminConfig(KafkaSettings settings, KafkaSecurity security) {
        return security.applyTo(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                settings.bootstrapServers(),
                AdminClientConfig.CLIENT_ID_CONFIG,
                "topic-creator"));
    }

    public void ensure(List<Topic<?, ?>> topics) {
        Map<String, Object> adminConfig = adminConfig(settings, security);
        Instant deadline = Instant.now().plus(settings.startupTimeout());
        try (Admin admin = Admin.create(adminConfig)) {
            while (true) {
                try {
                    createMissing(admin, topics);
                    return;
                } catch (ExecutionException | TimeoutException e) {
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException(
                                "cannot create topics on Kafka at " + settings.bootstrapServers() + " within "
                                        + settings.startupTimeout() + ": " + e.getMessage(),
                                e);
                    }
                    LOG.warnf("Kafka at %s not ready (%s); retrying", settings.bootstrapServers(), e.getMessage());
                    sleep();
                }
            }
        }
    }

    private void createMissing(Admin admin, List<Topic<?, ?>> topics) throws ExecutionException, TimeoutException {
        try {
            Set<String> existing = admin.listTopics().names().get(10, TimeUnit.SECONDS);
            requirePartitions(
                    admin,
                    topics.stream().map(Topic::name).filter(existing::contains).toList());
            TopicPlacement placement = TopicPlacement.of(settings);
            List<NewTopic> missing = topics.stream()
                    .filter(t -> !existing.contains(t.name()))
                    .map(t -> new NewTopic(t.name(), settings.partitions(), placement.replicationFactor())
                            .configs(configOf(t, placement)))
                    .toList();
            if (missing.isEmpty()) {
                LOG.infof("all %d topics of this service exist", topics.size());
                return;
            }
            int brokers =
                    admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size();
            placement.problem(brokers).ifPresent(problem -> {
                throw new IllegalStateException(problem);
            });
            List<String> created = new ArrayList<>();
            for (var entry : admin.createTopics(missing).values().entrySet()) {
                try {
                    entry.getValue().get(30, TimeUnit.SECONDS);
                    created.add(entry.getKey());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            LOG.infof(
                    "created %d topics (%d partitions, %s, on a cluster of %d brokers): %s; %d existed",
                    created.size(),
                    settings.partitions(),
                    placement.describe(),
                    brokers,
                    String.join(", ", created),
                    topics.size() - missing.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /**
     * Existing topics must have {@code nodepool.kafka.partitions} partitions: a pool's facts meet on one task only if
     * every pool-keyed topic agrees, and inbound records are placed by that count (Inputs).
     */
    private void requirePartitions(Admin admin, List<String> names)
            throws ExecutionException, TimeoutException, InterruptedException {
        if (names.isEmpty()) {
            return;
        }
        Map<String, TopicDescription> described =
                admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS);
        List<String> wrong = described.values().stream()
                .filter(d -> d.partitions().size() != settings.partitions())
                .map(d -> d.name() + " has " + d.partitions().size())
                .sorted()
                .toList();
        if (!wrong.isEmpty()) {
            throw new IllegalStateException("topics must have nodepool.kafka.partitions=" + settings.partitions()
                    + " partitions, but " + String.join(", ", wrong) + "; set nodepool.kafka.partitions to match, or "
                    + "recreate the topics");
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
    }
}
