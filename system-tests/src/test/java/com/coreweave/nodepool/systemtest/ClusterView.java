package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ClientSecurity;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/** What the fault harness asks a cluster's brokers: who leads most, and whether every replica is back in sync. */
final class ClusterView {

    private ClusterView() {}

    /** The node id of the broker that leads the most partitions (the internal topics' too): the busiest one. */
    static int busiestBroker(Stack stack) {
        Map<Integer, Integer> led = new HashMap<>();
        for (TopicDescription topic : describeAll(stack)) {
            for (TopicPartitionInfo partition : topic.partitions()) {
                if (partition.leader() != null) {
                    led.merge(partition.leader().id(), 1, Integer::sum);
                }
            }
        }
        return led.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .orElseThrow(() -> new IllegalStateException("no partition has a leader"));
    }

    /**
     * Waits until every partition has all its replicas in sync, as a rollout (Strimzi's) waits before it restarts the
     * next broker; fails after {@code timeout}.
     */
    static void awaitFullyReplicated(Stack stack, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long behind = describeAll(stack).stream()
                    .flatMap(topic -> topic.partitions().stream())
                    .filter(partition ->
                            partition.isr().size() < partition.replicas().size())
                    .count();
            if (behind == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(behind + " partitions still had replicas out of sync after " + timeout);
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static Collection<TopicDescription> describeAll(Stack stack) {
        try (Admin admin = Admin.create(ClientSecurity.client(stack.bootstrapServers()))) {
            var names = admin.listTopics(new ListTopicsOptions().listInternal(true))
                    .names()
                    .get(30, TimeUnit.SECONDS);
            return admin.describeTopics(names)
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .values();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe the cluster's topics", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
