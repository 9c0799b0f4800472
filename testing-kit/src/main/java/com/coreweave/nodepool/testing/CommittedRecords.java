package com.coreweave.nodepool.testing;

import com.coreweave.nodepool.testing.TopicProbe.Read;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A topic's committed records, read from the beginning with no consumer group, as {@link TopicProbe} reads them: every
 * reader of our topics reads committed records only, and a probe must never disturb the services' offsets.
 */
final class CommittedRecords {

    private CommittedRecords() {}

    /** Every committed record of {@code topic} up to its end at the time of the call; waits for the topic to exist. */
    static List<Read> readAll(String bootstrapServers, String topic) {
        List<Read> read = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = consumer(bootstrapServers)) {
            List<TopicPartition> partitions = List.of();
            while (partitions.isEmpty()) {
                partitions = partitions(consumer, topic, Duration.ofSeconds(2));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                poll(consumer).forEach(read::add);
            }
        }
        return read;
    }

    /**
     * Reads {@code topic} from the beginning until the records read so far satisfy {@code done}, and returns them; a
     * topic that does not exist yet is waited for. Fails after {@code timeout} showing what was read.
     */
    static List<Read> readUntil(String bootstrapServers, String topic, Predicate<List<Read>> done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Read> read = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = consumer(bootstrapServers)) {
            List<TopicPartition> partitions = List.of();
            while (!done.test(read)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("after " + timeout + ", " + topic + " still lacks what was expected; read "
                            + read.size() + " record(s), the last ones:\n" + describe(read));
                }
                if (partitions.isEmpty()) {
                    partitions = partitions(consumer, topic, Duration.ofSeconds(2));
                    consumer.assign(partitions);
                    consumer.seekToBeginning(partitions);
                } else {
                    poll(consumer).forEach(read::add);
                }
            }
        }
        return read;
    }

    /** The topic's partitions in order; none (after a short pause) while it does not exist or the broker is away. */
    static List<TopicPartition> partitions(KafkaConsumer<String, byte[]> consumer, String topic, Duration timeout) {
        try {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos != null && !infos.isEmpty()) {
                return infos.stream()
                        .map(info -> new TopicPartition(topic, info.partition()))
                        .sorted((a, b) -> Integer.compare(a.partition(), b.partition()))
                        .toList();
            }
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            // The broker is restarting; the caller asks again until its deadline.
        }
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
        }
        return List.of();
    }

    static List<Read> poll(KafkaConsumer<String, byte[]> consumer) {
        List<Read> read = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            read.add(new Read(
                    r.topic(),
                    r.key(),
                    r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8),
                    headers(r),
                    r.partition(),
                    r.offset(),
                    r.timestamp()));
        }
        return read;
    }

    static KafkaConsumer<String, byte[]> consumer(String bootstrapServers) {
        return new KafkaConsumer<>(
                ClientSecurity.client(
                        bootstrapServers,
                        Map.of(
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed",
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                false,
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest",
                                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                                2000)),
                new StringDeserializer(),
                new ByteArrayDeserializer());
    }

    private static Map<String, String> headers(ConsumerRecord<String, byte[]> record) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    private static String describe(List<Read> records) {
        StringBuilder text = new StringBuilder();
        records.stream()
                .skip(Math.max(0, records.size() - 20))
                .forEach(r -> text.append("  ")
                        .append(r.where())
                        .append(' ')
                        .append(r.key())
                        .append(" = ")
                        .append(r.value())
                        .append('\n'));
        return text.toString();
    }
}
