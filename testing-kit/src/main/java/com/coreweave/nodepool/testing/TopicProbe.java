package com.coreweave.nodepool.testing;

import com.coreweave.nodepool.schema.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes records to a topic and reads a topic from the beginning, the way a platform team or a dashboard would use the
 * system: committed records only, as every reader of our topics does, and no consumer group, so it never disturbs the
 * services' offsets. {@link #tail} follows one topic and reads only what arrived since.
 */
public final class TopicProbe implements AutoCloseable {

    private final String bootstrapServers;
    private final ProbeWriter writer;

    public TopicProbe(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        this.writer = new ProbeWriter(bootstrapServers);
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
        return writer.send(record);
    }

    /** Every committed record of {@code topic} up to its end at the time of the call; waits for the topic to exist. */
    public List<Read> readAll(String topic) {
        return CommittedRecords.readAll(bootstrapServers, topic);
    }

    /**
     * Reads {@code topic} from the beginning until the records read so far satisfy {@code done}, and returns them; a
     * topic that does not exist yet is waited for. Fails after {@code timeout} showing what was read.
     */
    public List<Read> readUntil(String topic, Predicate<List<Read>> done, Duration timeout) {
        return CommittedRecords.readUntil(bootstrapServers, topic, done, timeout);
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
            this.consumer = CommittedRecords.consumer(bootstrapServers);
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
                assigned = CommittedRecords.partitions(consumer, topic, timeout);
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
                for (Read r : CommittedRecords.poll(consumer)) {
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

    private static byte[] text(String value) {
        return value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        writer.close();
    }
}
