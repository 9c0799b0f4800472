package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.testing.ClientSecurity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * Which topics of the registry each service consumes, read from the running services themselves: the partitions the
 * broker assigned to each service's consumer group (its Kafka Streams application id), so the list follows the
 * topologies and cannot drift from a hand-kept one. Streams' own topics (repartition, changelog) are left out.
 */
final class ConsumedTopics {

    private static final Duration ASSIGNED = Duration.ofSeconds(90);

    private ConsumedTopics() {}

    /** For each service, the registry topics its group is assigned, once every group has a stable assignment. */
    static Map<Service, Set<String>> of(String bootstrapServers) {
        Set<String> registry = new TreeSet<>();
        Topics.all().forEach(topic -> registry.add(topic.name()));
        long deadline = System.nanoTime() + ASSIGNED.toNanos();
        try (Admin admin = Admin.create(ClientSecurity.client(bootstrapServers))) {
            while (true) {
                Map<Service, Set<String>> consumed = new EnumMap<>(Service.class);
                List<String> unsettled = new ArrayList<>();
                Map<String, ConsumerGroupDescription> groups = admin.describeConsumerGroups(
                                List.of(Service.values()).stream()
                                        .map(Service::module)
                                        .toList())
                        .all()
                        .get(10, TimeUnit.SECONDS);
                for (Service service : Service.values()) {
                    ConsumerGroupDescription group = groups.get(service.module());
                    Set<String> topics = new TreeSet<>();
                    for (MemberDescription member : group.members()) {
                        member.assignment().topicPartitions().stream()
                                .map(TopicPartition::topic)
                                .filter(registry::contains)
                                .forEach(topics::add);
                    }
                    if (topics.isEmpty() || group.groupState() != GroupState.STABLE) {
                        unsettled.add(service.module() + " (" + group.groupState() + ", " + topics + ")");
                    }
                    consumed.put(service, topics);
                }
                if (unsettled.isEmpty()) {
                    return consumed;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "no stable assignment within " + ASSIGNED.toSeconds() + " s: " + unsettled);
                }
                Thread.sleep(500);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe the services' consumer groups", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Where {@code service} dead-letters what it cannot read from {@code topic}: the topic's own {@code -dlq} when the
     * registry has one written by that service (the public inbound topics), else the service's {@code <service>-dlq}.
     */
    static String deadLetters(String topic, Service service) {
        return Topics.all().stream()
                .filter(t -> t.name().equals(topic + "-dlq") && t.owner().equals(service.module()))
                .map(Topic::name)
                .findFirst()
                .orElse(Topics.serviceDeadLetters(service.module()).name());
    }
}
