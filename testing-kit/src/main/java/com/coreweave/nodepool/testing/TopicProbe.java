package com.coreweave.nodepool.testing;

import com.coreweave.nodepool.schema.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
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
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes records to a topic and reads a topic from the beginning, the way a platform team or a dashboard would use the
 * system: committed records only, as every reader of our topics does, and no consumer group, so it never disturbs the
 * services' offsets. {@link #tail} follows one topic and reads only what arrived since.
 */
public final class TopicProbe implements AutoCloseable {

    private final String bootstrapServers;
    private KafkaProducer<String, byte[]> producer;

    public TopicProbe(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** A record as read: where from, key, value as text (null for a tombstone), headers as text. */
    public record Read(
            String topic,
            String key,
            String value,
            Map<String, String> headers,
            int partition,
            long offset,
            long timestamp) {

        public <T> T as(Class<T> type) {
            return Json.read(value, type);
        }

        /** A header as text; null when the record has none of that name. */
        public String header(String name) {
            return headers.get(name);
        }

        /** Where the record is: {@code p<partition>@<offset>}. */
        public String where() {
            return "p" + partition + "@" + offset;
        }
    }

    public void send(String topic, String key, String value) {
        sendBytes(topic, key, text(value));
    }

    public void sendJson(String topic, String key, Object value) {
        sendBytes(topic, key, value == null ? null : Json.bytes(value));
    }

    public void sendBytes(String topic, String key, byte[] value) {
        send(new ProducerRecord<>(topic, key, value));
    }

    /** To a partition of the caller's choice, as kcat -p or a librdkafka client with its own partitioner does. */
    public void sendToPartition(String topic, int partition, String key, String value) {
        send(new ProducerRecord<>(topic, partition, key, text(value)));
    }

    /** With headers; returns where the broker put it. */
    public RecordMetadata send(String topic, String key, String value, Map<String, String> headers) {
        return send(topic, null, key, value, headers);
    }

    /**
     * To a chosen partition ({@code null}: the Java client's default partitioner), with headers; returns where the
     * broker put it.
     */
    public RecordMetadata send(String topic, Integer partition, String key, String value, Map<String, String> headers) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, partition, key, text(value));
        headers.forEach((name, header) -> record.headers().add(name, header.getBytes(StandardCharsets.UTF_8)));
        return send(record);
    }

    private RecordMetadata send(ProducerRecord<String, byte[]> record) {
        String topic = record.topic();
        try {
            return producer().send(record).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "cannot write to " + topic + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to " + topic, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot write to " + topic + " within 30 s", e);
        }
    }

    /** Every committed record of {@code topic} up to its end at the time of the call; waits for the topic to exist. */
    public List<Read> readAll(String topic) {
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
    public List<Read> readUntil(String topic, Predicate<List<Read>> done, Duration timeout) {
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

    /** The first committed record of {@code topic} that matches; fails with what was read if none does in time. */
    public Read awaitRecord(String topic, Predicate<Read> match, Duration timeout) {
        return readUntil(topic, read -> read.stream().anyMatch(match), timeout).stream()
                .filter(match)
                .findFirst()
                .orElseThrow();
    }

    /** Follows {@code topic} from its beginning, each record's value as text. */
    public Tail<String> tail(String topic) {
        return Tail.of(bootstrapServers, topic, r -> new Kept<>(r.key(), r.value(), r));
    }

    /**
     * A record as a {@link Tail} keeps it: the key it is kept under, its value as read ({@code null}: a tombstone) and
     * the record it came from.
     */
    public record Kept<T>(String key, T value, Read record) {

        public boolean tombstone() {
            return value == null;
        }

        public int partition() {
            return record.partition();
        }

        public long offset() {
            return record.offset();
        }

        public long timestamp() {
            return record.timestamp();
        }

        public String where() {
            return record.where();
        }
    }

    /**
     * One topic followed from its beginning, committed records only, kept in offset order per partition: each
     * {@link #catchUp} reads just what arrived since, up to the partitions' last stable offset (everything before it is
     * decided), so tests can look often without re-reading the topic.
     */
    public static final class Tail<T> implements AutoCloseable {

        private final String topic;
        private final Function<Read, Kept<T>> reader;
        private final KafkaConsumer<String, byte[]> consumer;
        private final List<List<Kept<T>>> partitions = new ArrayList<>();
        private List<TopicPartition> assigned = List.of();

        private Tail(String bootstrapServers, String topic, Function<Read, Kept<T>> reader) {
            this.topic = topic;
            this.reader = reader;
            this.consumer = consumer(bootstrapServers);
        }

        /** Follows {@code topic}, keeping only the records whose key matches, values read as JSON. */
        public static <T> Tail<T> of(String bootstrapServers, String topic, Class<T> type, Predicate<String> keys) {
            return new Tail<>(
                    bootstrapServers,
                    topic,
                    r -> r.key() == null || !keys.test(r.key())
                            ? null
                            : new Kept<>(r.key(), r.value() == null ? null : Json.read(r.value(), type), r));
        }

        /** Follows {@code topic}, each record kept as {@code reader} says (null: skipped). */
        public static <T> Tail<T> of(String bootstrapServers, String topic, Function<Read, Kept<T>> reader) {
            return new Tail<>(bootstrapServers, topic, reader);
        }

        /** Reads every record committed so far; fails if that takes longer than {@code timeout}. */
        public synchronized Tail<T> catchUp(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            if (assigned.isEmpty()) {
                assigned = TopicProbe.partitions(consumer, topic, timeout);
                if (assigned.isEmpty()) {
                    throw new AssertionError("topic " + topic + " does not exist");
                }
                consumer.assign(assigned);
                consumer.seekToBeginning(assigned);
                assigned.forEach(p -> partitions.add(new ArrayList<>()));
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, timeout);
            while (assigned.stream().anyMatch(p -> consumer.position(p, timeout) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " up to " + ends + " within " + timeout);
                }
                for (Read r : poll(consumer)) {
                    Kept<T> kept = reader.apply(r);
                    if (kept != null) {
                        partitions.get(r.partition()).add(kept);
                    }
                }
            }
            return this;
        }

        /** Every record committed so far, partition by partition, each in offset order. */
        public synchronized List<Kept<T>> read() {
            return catchUp(Duration.ofSeconds(30)).all();
        }

        /** Every kept record of one partition, in offset order. */
        public synchronized List<Kept<T>> partition(int partition) {
            return Collections.unmodifiableList(new ArrayList<>(partitions.get(partition)));
        }

        public synchronized int partitionCount() {
            return partitions.size();
        }

        /** Every kept record, one list per partition in partition order, each in offset order. */
        public List<List<Kept<T>>> partitions() {
            return partitions(key -> true);
        }

        /** As {@link #partitions()}, only the records whose key matches. */
        public synchronized List<List<Kept<T>>> partitions(Predicate<String> keys) {
            List<List<Kept<T>>> kept = new ArrayList<>();
            partitions.forEach(partition ->
                    kept.add(partition.stream().filter(r -> keys.test(r.key())).toList()));
            return kept;
        }

        /** Every kept record, partition by partition, each in offset order. */
        public synchronized List<Kept<T>> all() {
            List<Kept<T>> all = new ArrayList<>();
            partitions.forEach(all::addAll);
            return all;
        }

        public synchronized int size() {
            return partitions.stream().mapToInt(List::size).sum();
        }

        @Override
        public synchronized void close() {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    /** The topic's partitions in order; none (after a short pause) while it does not exist or the broker is away. */
    private static List<TopicPartition> partitions(
            KafkaConsumer<String, byte[]> consumer, String topic, Duration timeout) {
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

    private static List<Read> poll(KafkaConsumer<String, byte[]> consumer) {
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

    private static KafkaConsumer<String, byte[]> consumer(String bootstrapServers) {
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
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new ByteArrayDeserializer());
    }

    private synchronized KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(
                    ClientSecurity.client(
                            bootstrapServers,
                            Map.of(
                                    ProducerConfig.ACKS_CONFIG, "all",
                                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000,
                                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)),
                    new StringSerializer(),
                    new ByteArraySerializer());
        }
        return producer;
    }

    private static byte[] text(String value) {
        return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
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

    @Override
    public synchronized void close() {
        if (producer != null) {
            producer.close();
        }
    }
}
