package com.coreweave.nodepool.api.messaging;

import com.coreweave.nodepool.api.kube.ListVersion;
import com.coreweave.nodepool.kit.kafka.KafkaSecurity;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.kafka.TopicFollower;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import io.fabric8.kubernetes.api.model.Event;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * The live side of the API: follows the outbound topics {@code nodepool-status} and {@code nodepool-events}, and the
 * provisioner's node facts ({@code nodepool-nodes-changed}), on every partition ({@link TopicFollower}) and hands each
 * change to the watchers that may see it. It keeps the last {@value #HISTORY} changes of each partition (and no more
 * than {@value #HISTORY_BYTES} bytes of them, since one pool's status can be large) and how far it has read, so that a
 * list's resourceVersion ({@link ListVersion}) names a position a watch can resume from, replaying what came after; a
 * position older than that history is gone.
 */
@ApplicationScoped
public class LiveFeed {

    private static final Logger LOG = Logger.getLogger(LiveFeed.class);
    /** Changes kept per partition for watches that resume from a list's version. */
    static final int HISTORY = 1000;
    /** Bytes of changes kept per partition: a tenant writing large pools shortens the history, never the heap. */
    static final long HISTORY_BYTES = 4L * 1024 * 1024;

    /** A change of a pool: its new state, or null when it was deleted. */
    public record PoolChange(PoolKey key, NodePool pool) {}

    /** A created or updated Kubernetes Event of a pool. */
    public record EventChange(PoolKey key, Event event) {}

    /** A node of a pool as it is now ({@code removed}: it left the pool). */
    public record NodeChange(PoolKey key, NodeFact.AboutNode fact) {

        public boolean removed() {
            return fact instanceof NodeFact.NodeRemoved;
        }
    }

    /**
     * The resource a watch follows: pools come from nodepool-status, events from nodepool-events, nodes from the
     * provisioner's node facts.
     */
    public enum Stream {
        POOLS(Topics.NODEPOOL_STATUS.name()),
        EVENTS(Topics.NODEPOOL_EVENTS.name()),
        NODES(Topics.NODEPOOL_NODES_CHANGED.name());

        final String topic;

        Stream(String topic) {
            this.topic = topic;
        }

        static Stream of(String topic) {
            return Arrays.stream(values())
                    .filter(s -> s.topic.equals(topic))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private record Watcher(Stream stream, String org, Consumer<Object> sink) {

        boolean sees(PoolKey key) {
            return org == null || org.equals(key.org());
        }
    }

    @Inject
    KafkaSettings settings;

    @Inject
    KafkaSecurity security;

    private final Object lock = new Object();
    private final List<Watcher> watchers = new ArrayList<>();
    private final Map<Stream, Map<Integer, PartitionHistory>> partitions = new HashMap<>();
    private TopicFollower follower;

    void start(@Observes StartupEvent event) {
        follower = TopicFollower.start(
                settings.bootstrapServers(),
                security,
                "live-feed",
                Arrays.stream(Stream.values()).map(s -> s.topic).toList(),
                this::startHistory,
                this::receive);
    }

    /** How far the feed has read the stream's partitions: the resourceVersion of a list read now. */
    public ListVersion version(Stream stream) {
        synchronized (lock) {
            Map<Integer, PartitionHistory> read = partitions.getOrDefault(stream, Map.of());
            List<Long> offsets = new ArrayList<>();
            for (int p = 0; p < read.size(); p++) {
                offsets.add(read.get(p).position);
            }
            return ListVersion.of(offsets);
        }
    }

    /** Whether the feed still knows every change after {@code version}, so a list of it can be continued. */
    public boolean resumable(Stream stream, String version) {
        synchronized (lock) {
            ListVersion from = ListVersion.parse(
                    version, partitions.getOrDefault(stream, Map.of()).size());
            if (from == null) {
                return false;
            }
            Map<Integer, PartitionHistory> read = partitions.get(stream);
            for (int p = 0; p < from.offsets().size(); p++) {
                long wanted = from.offsets().get(p);
                if (wanted < read.get(p).coveredFrom && wanted < read.get(p).position) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The stream's partition count once the feed runs (0 before). */
    public int partitionCount(Stream stream) {
        synchronized (lock) {
            return partitions.getOrDefault(stream, Map.of()).size();
        }
    }

    /**
     * Registers a watcher of one org's changes (every org's when null). With a version, the changes after it are
     * replayed first; null when the history no longer reaches back that far. The returned runnable unregisters it.
     */
    public Runnable watch(Stream stream, String org, ListVersion from, Consumer<Object> sink) {
        Watcher watcher = new Watcher(stream, org, sink);
        synchronized (lock) {
            if (from != null) {
                if (!resumable(stream, from.toString())) {
                    return null;
                }
                Map<Integer, PartitionHistory> read = partitions.get(stream);
                for (int p = 0; p < from.offsets().size(); p++) {
                    long wanted = from.offsets().get(p);
                    read.get(p).history.stream()
                            .filter(s -> s.offset >= wanted && watcher.sees(s.key))
                            .map(SeenChange::change)
                            .filter(Objects::nonNull)
                            .forEach(sink);
                }
            }
            watchers.add(watcher);
        }
        return () -> {
            synchronized (lock) {
                watchers.remove(watcher);
            }
        };
    }

    /** Runs {@code action} between two changes, so that what it sends is ordered with them. */
    public void between(Runnable action) {
        synchronized (lock) {
            action.run();
        }
    }

    /** What the follower hands over: records read, then how far each partition is read (package-private for tests). */
    void receive(ConsumerRecords<String, byte[]> records, Map<TopicPartition, Long> positions) {
        synchronized (lock) {
            records.forEach(this::dispatch);
            positions.forEach((tp, position) -> partition(tp).position = position);
        }
    }

    /** Each partition starts {@value #HISTORY} records before its end, to fill the history. */
    Map<TopicPartition, Long> startHistory(Map<TopicPartition, Long> begins, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        synchronized (lock) {
            ends.forEach((tp, end) -> {
                long from = Math.max(begins.get(tp), end - HISTORY);
                offsets.put(tp, from);
                PartitionHistory partition = partition(tp);
                partition.coveredFrom = from;
                partition.position = from;
            });
        }
        return offsets;
    }

    private PartitionHistory partition(TopicPartition tp) {
        Stream stream = Stream.of(tp.topic());
        return partitions
                .computeIfAbsent(stream, s -> new HashMap<>())
                .computeIfAbsent(tp.partition(), p -> new PartitionHistory());
    }

    private void dispatch(ConsumerRecord<String, byte[]> record) {
        PoolKey key;
        try {
            key = PoolKey.parse(record.key());
        } catch (RuntimeException e) {
            LOG.warnf(
                    "unreadable record on %s-%d@%d: %s",
                    record.topic(), record.partition(), record.offset(), e.getMessage());
            return;
        }
        Stream stream = Stream.of(record.topic());
        if (stream != Stream.POOLS && record.value() == null) {
            return;
        }
        SeenChange seen = new SeenChange(record.offset(), key, stream, record.value());
        partition(new TopicPartition(record.topic(), record.partition())).keep(seen, HISTORY, HISTORY_BYTES);
        watchers.stream().filter(w -> w.stream() == stream && w.sees(key)).forEach(w -> {
            Object change = seen.change();
            if (change != null) {
                try {
                    w.sink().accept(change);
                } catch (RuntimeException e) {
                    // One watch that cannot show a change must not cost the others theirs (nor the feed its place).
                    LOG.warnf(
                            e,
                            "a %s watch could not take the change at %s-%d@%d",
                            stream,
                            record.topic(),
                            record.partition(),
                            record.offset());
                }
            }
        });
    }

    void stop(@Observes ShutdownEvent event) {
        if (follower != null) {
            follower.close();
        }
    }
}
