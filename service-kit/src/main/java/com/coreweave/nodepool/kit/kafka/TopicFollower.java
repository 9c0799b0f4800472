package com.coreweave.nodepool.kit.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Follows every partition of some topics on a thread of its own, outside any consumer group (assigned, so each instance
 * of a service sees every record), read_committed: the one loop behind the API's live views (the request decisions a
 * REST write waits for, the watches). It waits for the topics to exist, lets the {@link Start} choose where each
 * partition begins, then hands every polled batch, with the positions reached, to the {@link Receiver}.
 *
 * <p>It never stops for good before {@link #close()}: those views would wait for ever. When the {@link Receiver} throws
 * on a batch, the batch is handed over again one record at a time and a record it throws on is skipped (the records
 * before it in the batch are handed over twice). When the consumer fails, the loop starts again after a short pause
 * from where it had read to; {@link #positioned()} is false in between, so the readiness of the views says so. Both are
 * logged and counted in {@code nodepool_topic_follower_failures_total{follower}}.
 */
public final class TopicFollower implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(TopicFollower.class);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration PAUSE = Duration.ofSeconds(1);
    private static final long TOPIC_WAIT_MILLIS = 200;

    /** Where each partition starts, given its first and next offsets. */
    @FunctionalInterface
    public interface Start {
        Map<TopicPartition, Long> offsets(Map<TopicPartition, Long> begins, Map<TopicPartition, Long> ends);

        /** Only what is written from now on. */
        static Start atEnd() {
            return (begins, ends) -> ends;
        }
    }

    /**
     * Takes a polled batch and where each partition's reading stands after it (a batch of one record skipped after a
     * failure: where its own partition stands).
     */
    @FunctionalInterface
    public interface Receiver {
        void receive(ConsumerRecords<String, byte[]> records, Map<TopicPartition, Long> positions);
    }

    private final String name;
    private final Set<String> topics;
    private final Consumer<String, byte[]> consumer;
    private final Start start;
    private final Receiver receiver;
    private final Duration pause;
    private final Counter failures;
    private final CountDownLatch closing = new CountDownLatch(1);
    private volatile boolean positioned;
    /** Where each partition's reading stands after the last batch taken: where a new start goes on. */
    private Map<TopicPartition, Long> reached = Map.of();

    TopicFollower(
            String name,
            Collection<String> topics,
            Consumer<String, byte[]> consumer,
            Start start,
            Receiver receiver,
            Duration pause,
            MeterRegistry registry) {
        this.name = name;
        this.topics = Set.copyOf(topics);
        this.consumer = consumer;
        this.start = start;
        this.receiver = receiver;
        this.pause = pause;
        this.failures = Counter.builder("nodepool.topic.follower.failures")
                .tag("follower", name)
                .description("Failures of a topic follower's loop or receiver; it goes on after each")
                .register(registry);
    }

    /**
     * Starts following {@code topics} of the broker at {@code bootstrapServers}, under the client id {@code name}, with
     * the client security settings {@code security}.
     */
    public static TopicFollower start(
            String bootstrapServers,
            KafkaSecurity security,
            String name,
            Collection<String> topics,
            Start start,
            Receiver receiver) {
        var consumer = new KafkaConsumer<>(
                consumerConfig(bootstrapServers, security, name),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        return new TopicFollower(name, topics, consumer, start, receiver, PAUSE, Metrics.globalRegistry).startThread();
    }

    /** The consumer's configuration: read_committed, no commits, {@code security}'s settings. */
    static Map<String, Object> consumerConfig(String bootstrapServers, KafkaSecurity security, String name) {
        return security.applyTo(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.CLIENT_ID_CONFIG,
                name));
    }

    TopicFollower startThread() {
        Thread.ofPlatform().name(name).daemon().start(this::run);
        return this;
    }

    /** Whether every partition is positioned and being read (false before, while it starts again, and once closed). */
    public boolean positioned() {
        return positioned;
    }

    void run() {
        try {
            while (true) {
                try {
                    follow();
                } catch (WakeupException e) {
                    return;
                } catch (RuntimeException e) {
                    positioned = false;
                    failures.increment();
                    LOG.errorf(e, "%s failed following %s; starting again in %s", name, topics, pause);
                    if (closing.await(pause.toMillis(), TimeUnit.MILLISECONDS)) {
                        return;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            positioned = false;
            consumer.close();
        }
    }

    private void follow() throws InterruptedException {
        List<TopicPartition> partitions = awaitPartitions();
        consumer.assign(partitions);
        if (reached.isEmpty()) {
            reached = start.offsets(consumer.beginningOffsets(partitions), consumer.endOffsets(partitions));
        }
        reached.forEach(consumer::seek);
        partitions.forEach(consumer::position);
        positioned = true;
        while (true) {
            ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
            Map<TopicPartition, Long> positions = new HashMap<>();
            for (TopicPartition partition : partitions) {
                positions.put(partition, consumer.position(partition));
            }
            reached = positions;
            hand(records, positions);
        }
    }

    /** Hands a batch to the receiver; if it fails, record by record, skipping those it fails on. */
    private void hand(ConsumerRecords<String, byte[]> records, Map<TopicPartition, Long> positions) {
        try {
            receiver.receive(records, positions);
            return;
        } catch (RuntimeException e) {
            failures.increment();
            LOG.errorf(
                    e,
                    "%s: the receiver failed on a batch of %d record(s); handing them over one by one",
                    name,
                    records.count());
        }
        for (ConsumerRecord<String, byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            long next = record.offset() + 1;
            try {
                receiver.receive(
                        new ConsumerRecords<>(
                                Map.of(partition, List.of(record)), Map.of(partition, new OffsetAndMetadata(next))),
                        Map.of(partition, next));
            } catch (RuntimeException e) {
                failures.increment();
                LOG.errorf(
                        e,
                        "%s skipped %s-%d@%d: the receiver failed on it",
                        name,
                        record.topic(),
                        record.partition(),
                        record.offset());
            }
        }
        receiver.receive(ConsumerRecords.empty(), positions);
    }

    /** Every partition of the topics, once all of them exist (TopicCreator may run on the same start-up event). */
    private List<TopicPartition> awaitPartitions() throws InterruptedException {
        while (true) {
            List<TopicPartition> partitions = topics.stream()
                    .flatMap(topic -> consumer.partitionsFor(topic).stream())
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            if (partitions.stream().map(TopicPartition::topic).distinct().count() == topics.size()) {
                return partitions;
            }
            Thread.sleep(TOPIC_WAIT_MILLIS);
        }
    }

    /** Stops the loop; the consumer is closed on its own thread. */
    @Override
    public void close() {
        closing.countDown();
        consumer.wakeup();
    }
}
