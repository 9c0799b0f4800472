package com.coreweave.nodepool.systemtest.harness;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Talks to the stack's broker the way a platform team or a dashboard would: publishes a record, and reads a topic's
 * committed records from the beginning (no consumer group, so it never disturbs the services' offsets).
 */
public final class KafkaProbe implements AutoCloseable {

    private final String bootstrapServers;
    private KafkaProducer<String, String> producer;

    public KafkaProbe(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** Publishes one record (acks=all) and waits until the broker has it. */
    public RecordMetadata produce(String topic, String key, String value, Map<String, String> headers) {
        return produce(topic, null, key, value, headers);
    }

    /**
     * Publishes one record to a chosen partition ({@code null}: the Java client's default partitioner), as clients
     * with another partitioner or an explicit partition do, and waits until the broker has it.
     */
    public RecordMetadata produce(String topic, Integer partition, String key, String value,
                                  Map<String, String> headers) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, partition, key, value);
        headers.forEach((name, header) -> record.headers().add(name, header.getBytes(StandardCharsets.UTF_8)));
        try {
            return producer().send(record).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("producing to " + topic + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while producing to " + topic, e);
        }
    }

    /** The first committed record of {@code topic} that matches; fails with what was read if none does in time. */
    public ConsumerRecord<String, String> awaitRecord(
            String topic, Predicate<ConsumerRecord<String, String>> match, Duration timeout) {
        List<ConsumerRecord<String, String>> read = readUntil(topic, records -> records.stream().anyMatch(match),
                timeout);
        return read.stream().filter(match).findFirst().orElseThrow();
    }

    /**
     * Reads {@code topic} from the beginning, read_committed, until {@code done} holds for all records read so far,
     * and returns them; a topic that does not exist yet is waited for. Fails with what was read if time runs out.
     */
    public List<ConsumerRecord<String, String>> readUntil(
            String topic, Predicate<List<ConsumerRecord<String, String>>> done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = List.of();
            while (!done.test(read)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no match on topic " + topic + " within " + timeout.toMillis()
                            + " ms; read " + read.size() + " record(s):\n" + describe(read));
                }
                if (partitions.isEmpty()) {
                    partitions = partitions(consumer, topic);
                    consumer.assign(partitions);
                    consumer.seekToBeginning(partitions);
                } else {
                    consumer.poll(Duration.ofMillis(100)).forEach(read::add);
                }
            }
        }
        return read;
    }

    /** Every committed record of {@code topic} up to its end at the time of the call. */
    public List<ConsumerRecord<String, String>> readAll(String topic) {
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = List.of();
            while (partitions.isEmpty()) {
                partitions = partitions(consumer, topic);
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                consumer.poll(Duration.ofMillis(100)).forEach(read::add);
            }
        }
        return read;
    }

    /** A header of a record as text, {@code null} when the record has none of that name. */
    public static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close();
        }
    }

    private KafkaProducer<String, String> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000),
                    new StringSerializer(), new StringSerializer());
        }
        return producer;
    }

    /** The topic's partitions; none (after a short pause) while it does not exist or the broker is unreachable. */
    private static List<TopicPartition> partitions(KafkaConsumer<String, String> consumer, String topic) {
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(2));
            if (!infos.isEmpty()) {
                return infos.stream().map(info -> new TopicPartition(topic, info.partition())).toList();
            }
        } catch (TimeoutException e) {
            // the broker is restarting; the caller asks again until its deadline
        }
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
        }
        return List.of();
    }

    private static String describe(List<ConsumerRecord<String, String>> records) {
        StringBuilder text = new StringBuilder();
        records.stream().skip(Math.max(0, records.size() - 20)).forEach(record -> text.append("  ")
                .append(record.partition()).append('@').append(record.offset()).append(' ')
                .append(record.key()).append(" = ").append(record.value()).append('\n'));
        return text.toString();
    }
}
