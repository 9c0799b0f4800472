package com.coreweave.nodepool.systemtest.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

/**
 * What was written to the broker between two moments, per topic (internal ones too: changelogs, repartitions,
 * {@code __consumer_offsets}, {@code __transaction_state}): offsets (records plus transaction markers, from the log end
 * offsets) and bytes (growth of the log on disk, batch headers included). Within a phase no segment of these sizes is
 * rolled, compacted or deleted, so the growth is what was appended.
 */
public final class BrokerWrites {

    /** Log end offset and log size of every topic at one moment. */
    public record Snapshot(Map<String, long[]> byTopic) {

        /** The sum of the log end offsets of the topics outside parties and services write (no {@code __} topics). */
        long appended() {
            return byTopic.entrySet().stream()
                    .filter(e -> !e.getKey().startsWith("__"))
                    .mapToLong(e -> e.getValue()[0])
                    .sum();
        }
    }

    /** Offsets and bytes one topic grew by. */
    public record Growth(String topic, long offsets, long bytes) {}

    /** What every topic grew by between two snapshots, biggest first. */
    public record Delta(List<Growth> topics) {

        public long offsets() {
            return topics.stream().mapToLong(Growth::offsets).sum();
        }

        long bytes() {
            return topics.stream().mapToLong(Growth::bytes).sum();
        }

        long offsetsOf(String topic) {
            return topics.stream()
                    .filter(g -> g.topic().equals(topic))
                    .mapToLong(Growth::offsets)
                    .sum();
        }
    }

    private final Admin admin;

    public BrokerWrites(Admin admin) {
        this.admin = admin;
    }

    public Snapshot snapshot() {
        Map<String, long[]> byTopic = new HashMap<>();
        Map<TopicPartition, Long> sizes = logSizes();
        sizes.forEach((partition, size) -> byTopic.computeIfAbsent(partition.topic(), t -> new long[2])[1] += size);
        endOffsets(sizes.keySet()).forEach((partition, end) -> byTopic.get(partition.topic())[0] += end);
        return new Snapshot(byTopic);
    }

    /** The log end offset (high watermark) of every partition the broker has, internal topics too. */
    Map<TopicPartition, Long> endOffsets() {
        return endOffsets(logSizes().keySet());
    }

    /** Every partition's log size on disk, from the broker's log directories. */
    private Map<TopicPartition, Long> logSizes() {
        try {
            List<Integer> brokers =
                    admin.describeCluster().nodes().get().stream().map(Node::id).toList();
            Map<TopicPartition, Long> sizes = new HashMap<>();
            admin.describeLogDirs(brokers)
                    .allDescriptions()
                    .get()
                    .values()
                    .forEach(dirs -> dirs.values()
                            .forEach(dir -> dir.replicaInfos()
                                    .forEach((partition, info) -> sizes.merge(partition, info.size(), Long::sum))));
            return sizes;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the broker's log sizes: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        partitions.forEach(partition -> latest.put(partition, OffsetSpec.latest()));
        try {
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest)
                    .all()
                    .get()
                    .forEach((partition, offsets) -> ends.put(partition, offsets.offset()));
            return ends;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot read the broker's offsets: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static Delta between(Snapshot from, Snapshot to) {
        List<Growth> topics = new ArrayList<>();
        to.byTopic().forEach((topic, now) -> {
            long[] before = from.byTopic().getOrDefault(topic, new long[2]);
            if (now[0] > before[0] || now[1] > before[1]) {
                topics.add(new Growth(topic, now[0] - before[0], now[1] - before[1]));
            }
        });
        topics.sort(Comparator.comparingLong(Growth::bytes).reversed());
        return new Delta(topics);
    }

    /**
     * Waits until nothing more is appended to the non-internal topics for a second (the last events and status written
     * after a pool's TargetMet), at most {@code max}; the snapshot then.
     */
    Snapshot afterQuiet(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        Snapshot last = snapshot();
        int quietPolls = 0;
        while (quietPolls < 4 && System.nanoTime() < deadline) {
            Thread.sleep(250);
            Snapshot now = snapshot();
            quietPolls = now.appended() == last.appended() ? quietPolls + 1 : 0;
            last = now;
        }
        return last;
    }

    /**
     * Waits until no offset of any topic, internal ones included, moved for {@code still} (the last offsets committed
     * and transactions completed after the last record), at most {@code max}; the snapshot then.
     */
    public Snapshot afterStill(Duration still, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        Snapshot first = snapshot();
        Snapshot last = first;
        long stillSince = System.nanoTime();
        while (System.nanoTime() - stillSince < still.toNanos()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the broker was not still for " + still + " within " + max
                        + "; what moved meanwhile: " + between(first, last).topics());
            }
            Thread.sleep(250);
            Snapshot now = snapshot();
            if (!between(last, now).topics().isEmpty()) {
                stillSince = System.nanoTime();
            }
            last = now;
        }
        return last;
    }
}
