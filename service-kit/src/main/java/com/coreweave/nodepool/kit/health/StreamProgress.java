package com.coreweave.nodepool.kit.health;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;

/**
 * Which input partitions of this instance's stream tasks have records waiting while their committed position stands
 * still, for longer than a timeout: a processor blocked, or a thread that fails and is replaced before it commits.
 *
 * <p>The signal is Kafka Streams' own task metadata ({@code KafkaStreams#metadataForLocalThreads}): per input
 * partition, the offset a task last committed and the offset of the last record its consumer fetched. A partition is
 * behind while the last record fetched is at or after the committed offset (fetched, not processed and committed);
 * under exactly-once nothing a task does counts before it commits, so the committed offset is the one position that
 * means progress. It costs no broker call (the committed and end offsets of the admin client would, per check), it is
 * not fooled by a consumer that fetched ahead while its thread is stuck (the consumer's lag metrics are), and unlike a
 * clock kept by our processors it also sees the records waiting behind a stuck one. Its blind spot: records not fetched
 * yet, which a thread that is not stuck fetches.
 *
 * <p>A new stream task (a replaced thread, a rebalance) starts with no committed offset of its own, so a partition
 * stays watched across it until its committed offset passes the highest seen, or it is seen caught up.
 */
public final class StreamProgress {

    /** One input partition of an active task: the offset it last committed and of the last record it fetched. */
    public record Position(String task, TopicPartition partition, long committed, long lastFetched) {

        /** Records fetched that are not committed yet. (-1: none committed, or none fetched, by this task.) */
        boolean behind() {
            return lastFetched >= 0 && lastFetched >= committed;
        }
    }

    /** A partition behind since {@code since}, when its committed offset was {@code committed}. */
    private record Watch(long committed, Instant since) {}

    private final Duration timeout;
    private final Map<TopicPartition, Watch> watches = new HashMap<>();

    public StreamProgress(Duration timeout) {
        this.timeout = timeout;
    }

    /** The positions of every active task of {@code threads}. */
    public static List<Position> positions(Collection<ThreadMetadata> threads) {
        List<Position> positions = new ArrayList<>();
        for (ThreadMetadata thread : threads) {
            for (TaskMetadata task : thread.activeTasks()) {
                for (TopicPartition partition : task.topicPartitions()) {
                    positions.add(new Position(
                            task.taskId().toString(),
                            partition,
                            task.committedOffsets().getOrDefault(partition, -1L),
                            task.endOffsets().getOrDefault(partition, -1L)));
                }
            }
        }
        return positions;
    }

    /** Takes in the positions seen at {@code now}; returns those behind without progress for the timeout or longer. */
    public synchronized List<Position> stalled(Collection<Position> positions, Instant now) {
        Set<TopicPartition> here = new HashSet<>();
        List<Position> stalled = new ArrayList<>();
        for (Position position : positions) {
            TopicPartition partition = position.partition();
            here.add(partition);
            Watch watch = watches.get(partition);
            if (!position.behind()) {
                if (position.committed() >= 0) {
                    watches.remove(partition);
                }
                continue;
            }
            if (watch == null || position.committed() > watch.committed()) {
                watches.put(partition, new Watch(position.committed(), now));
            } else if (!now.isBefore(watch.since().plus(timeout))) {
                stalled.add(position);
            }
        }
        watches.keySet().retainAll(here);
        return stalled;
    }

    public Duration timeout() {
        return timeout;
    }
}
