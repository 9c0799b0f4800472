package com.coreweave.nodepool.kit.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Which input partitions assigned to this instance have had no running task for longer than a timeout while nothing was
 * being restored: a task that never starts. Kafka Streams' task metadata does not show such a task at all (it lists the
 * tasks a thread runs), so {@link StreamProgress} cannot see it; run 3 of the fault harness found one, stuck for 15
 * minutes in {@code KafkaConsumer.committed} while the instance said it was ready (docs/reliability.md).
 *
 * <p>Restoring a store legitimately keeps a task from running, for minutes when a store is large: while any store of
 * this instance restores records, no partition counts as stuck, and the clock starts again once restoring stops.
 */
public final class TaskStartWatch {

    private final Duration timeout;
    private final Map<TopicPartition, Instant> waitingSince = new HashMap<>();
    private long restoredSeen = -1;

    public TaskStartWatch(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * Takes in the partitions assigned to this instance without a running task at {@code now}, and how many records its
     * stores have restored in all; returns those waiting for the timeout or longer with no restoring meanwhile.
     */
    public synchronized List<TopicPartition> stuck(
            Collection<TopicPartition> assignedNotRunning, long restoredRecords, Instant now) {
        if (restoredRecords != restoredSeen) {
            restoredSeen = restoredRecords;
            waitingSince.replaceAll((partition, since) -> now);
        }
        waitingSince.keySet().retainAll(assignedNotRunning);
        List<TopicPartition> stuck = new ArrayList<>();
        for (TopicPartition partition : assignedNotRunning) {
            Instant since = waitingSince.computeIfAbsent(partition, p -> now);
            if (!now.isBefore(since.plus(timeout))) {
                stuck.add(partition);
            }
        }
        return stuck;
    }
}
