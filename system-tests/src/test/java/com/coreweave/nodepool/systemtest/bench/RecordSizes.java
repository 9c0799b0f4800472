package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.testing.ClientSecurity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The largest record written to each topic during a run, sized as Kafka's producer sizes a record against its
 * {@code max.request.size} (1 MiB by default): key, value and headers uncompressed, plus the overhead of a batch of one
 * ({@code AbstractRecords.estimateSizeInBytesUpperBound}). Reads every topic the broker has (changelogs and
 * repartitions too, not {@code __consumer_offsets} or {@code __transaction_state}) with a plain read_uncommitted
 * consumer, from the offsets at the run's start: records of aborted transactions count, since they were written. Each
 * read goes on from where the last stopped, so a run can read before it deletes a big pool (the cleaner may then drop
 * the pool's values from a compacted topic) and again at the end. Also counts the dead letters written, and finds in
 * the services' logs the records their producers refused for their size, which no topic holds.
 */
final class RecordSizes {

    /** The producer's default {@code max.request.size}: what no record may outgrow. */
    static final int KAFKA_LIMIT = 1024 * 1024;

    private static final Set<String> SKIPPED = Set.of("__consumer_offsets", "__transaction_state");
    /** How service-kit's producers log a record they refuse for its size ({@code RecordTooLargeToSend}). */
    private static final Pattern REFUSED = Pattern.compile("The record for (\\S+) is (\\d+) bytes when serialized");

    /** What was read of one topic: its records and the largest of them. */
    static final class Topic {
        final String name;
        long records;
        long bytes;
        int largest;
        String largestKey;
        int partition;
        long offset;

        Topic(String name) {
            this.name = name;
        }
    }

    private final String bootstrapServers;
    private final BrokerWrites broker;
    /** Where each partition is read from next; a partition not in it is read from its beginning (a later topic). */
    private final Map<TopicPartition, Long> next = new HashMap<>();

    private final Map<String, Topic> topics = new TreeMap<>();
    /** Per dead-letter topic, how many letters of each {@code dlq.error} (and target topic, when one was refused). */
    private final Map<String, Map<String, Long>> deadLetters = new TreeMap<>();
    /** The largest record refused for its size per topic, from the services' logs, with who refused it. */
    private final Map<String, Refused> refused = new TreeMap<>();

    private double seconds;
    private final List<String> unfinished = new ArrayList<>();

    /** A record a service could not write: its topic, its size, and the service's log it was found in. */
    record Refused(String topic, int size, String service) {}

    /** Starts from every partition's end offset now. */
    RecordSizes(String bootstrapServers, BrokerWrites broker) {
        this.bootstrapServers = bootstrapServers;
        this.broker = broker;
        broker.endOffsets().forEach((partition, end) -> {
            if (!SKIPPED.contains(partition.topic())) {
                next.put(partition, end);
            }
        });
    }

    /** Reads every partition up to its end offset now (at most {@code max}); the next read goes on from there. */
    void readToEnd(Duration max) {
        long start = System.nanoTime();
        Map<TopicPartition, Long> ends = new HashMap<>();
        broker.endOffsets().forEach((partition, end) -> {
            if (!SKIPPED.contains(partition.topic()) && end > next.getOrDefault(partition, 0L)) {
                ends.put(partition, end);
            }
        });
        unfinished.clear();
        if (!ends.isEmpty()) {
            read(ends, start + max.toNanos());
        }
        seconds += (System.nanoTime() - start) / 1e9;
    }

    private void read(Map<TopicPartition, Long> ends, long deadline) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                ClientSecurity.client(
                        bootstrapServers,
                        Map.of(
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_uncommitted",
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                false,
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest",
                                ConsumerConfig.CLIENT_ID_CONFIG,
                                "benchmark-record-sizes",
                                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                                8 * 1024 * 1024,
                                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                                5_000)),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(ends.keySet());
            ends.keySet().forEach(partition -> consumer.seek(partition, next.getOrDefault(partition, 0L)));
            Map<TopicPartition, Long> left = new HashMap<>(ends);
            while (!left.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    // Records written after this read began are the next read's.
                    if (record.offset() < ends.get(partition)) {
                        measure(record);
                    }
                }
                for (var it = left.entrySet().iterator(); it.hasNext(); ) {
                    var partition = it.next();
                    if (consumer.position(partition.getKey()) >= partition.getValue()) {
                        next.put(partition.getKey(), partition.getValue());
                        consumer.pause(List.of(partition.getKey()));
                        it.remove();
                    }
                }
            }
            left.keySet().forEach(partition -> {
                next.put(partition, consumer.position(partition));
                unfinished.add(partition.toString());
            });
        }
    }

    private void measure(ConsumerRecord<byte[], byte[]> record) {
        Header[] headers = record.headers().toArray();
        int size = AbstractRecords.estimateSizeInBytesUpperBound(
                RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, record.key(), record.value(), headers);
        Topic topic = topics.computeIfAbsent(record.topic(), Topic::new);
        topic.records++;
        topic.bytes += size;
        if (size > topic.largest) {
            topic.largest = size;
            topic.largestKey = printable(record.key());
            topic.partition = record.partition();
            topic.offset = record.offset();
        }
        if (record.topic().endsWith("-dlq")) {
            String error = header(record, DeadLetters.ERROR);
            String target = header(record, DeadLetters.TARGET_TOPIC);
            deadLetters
                    .computeIfAbsent(record.topic(), t -> new TreeMap<>())
                    .merge(
                            (error == null ? "no dlq.error" : error) + (target == null ? "" : " for `" + target + "`"),
                            1L,
                            Long::sum);
        }
    }

    /** Finds the records refused for their size in the services' logs of the run ({@code <service>.log}). */
    void readRefusals(Path logs) throws IOException {
        try (Stream<Path> files = Files.list(logs)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                String service = file.getFileName().toString().replace(".log", "");
                // Latin-1 reads any byte: a log may hold what is not UTF-8, and the line sought is ASCII.
                try (Stream<String> lines = Files.lines(file, StandardCharsets.ISO_8859_1)) {
                    lines.map(REFUSED::matcher)
                            .filter(Matcher::find)
                            .forEach(m -> refused.merge(
                                    m.group(1),
                                    new Refused(m.group(1), Integer.parseInt(m.group(2)), service),
                                    (a, b) -> a.size() >= b.size() ? a : b));
                }
            }
        }
    }

    /** The largest record refused for its size, or null when none was. */
    Refused largestRefused() {
        return refused.values().stream()
                .max(Comparator.comparingInt(Refused::size))
                .orElse(null);
    }

    /** The largest record of the run, over every topic; 0 when nothing was read. */
    int largest() {
        return topics.values().stream().mapToInt(t -> t.largest).max().orElse(0);
    }

    /** The topic that holds the largest record, or null. */
    Topic largestTopic() {
        return topics.values().stream()
                .max(Comparator.comparingInt(t -> t.largest))
                .orElse(null);
    }

    boolean anyRead() {
        return !topics.isEmpty();
    }

    /** The report's section: the topics with the largest records, the limit beside them, and the dead letters. */
    String section(int limit) {
        StringBuilder md = new StringBuilder();
        long records = topics.values().stream().mapToLong(t -> t.records).sum();
        long bytes = topics.values().stream().mapToLong(t -> t.bytes).sum();
        md.append("Every record written during the run to any of the broker's ")
                .append(topics.size())
                .append(
                        " topics that got one (changelogs and repartitions too; not `__consumer_offsets`, "
                                + "`__transaction_state`), read from the offsets at the run's start to the end by a plain "
                                + "read_uncommitted consumer (records of aborted transactions count, transaction markers do not): ")
                .append(String.format(
                        Locale.ROOT,
                        "%,d records, %s as the producer counts them, read in %.1f s. ",
                        records,
                        Targets.Unit.BYTES.format(bytes),
                        seconds))
                .append(
                        "A record's size is its key, value and headers uncompressed with a batch's overhead, as Kafka's "
                                + "producer checks it against `max.request.size` (")
                .append(Targets.Unit.BYTES.format(KAFKA_LIMIT))
                .append(
                        " by default). A compacted topic's value replaced by a later one of its key may have been cleaned "
                                + "before it was read.\n\n");
        if (!unfinished.isEmpty()) {
            md.append("**Not read to the end in time:** ")
                    .append(String.join(", ", unfinished))
                    .append(".\n\n");
        }
        List<Topic> over =
                topics.values().stream().filter(t -> t.largest > KAFKA_LIMIT).toList();
        if (!over.isEmpty()) {
            md.append("**Over Kafka's 1 MiB:** ")
                    .append(String.join(
                            ", ",
                            over.stream()
                                    .map(t -> "`" + t.name + "` (" + Targets.Unit.BYTES.format(t.largest) + ")")
                                    .toList()))
                    .append(".\n\n");
        }
        md.append("| topic | records | largest record | of 1 MiB | its key (partition, offset) | mean |\n");
        md.append("| --- | ---: | ---: | ---: | --- | ---: |\n");
        topics.values().stream()
                .sorted(Comparator.comparingInt((Topic t) -> t.largest).reversed())
                .limit(limit)
                .forEach(t -> md.append("| `")
                        .append(t.name)
                        .append("` | ")
                        .append(String.format(Locale.ROOT, "%,d", t.records))
                        .append(" | ")
                        .append(Targets.Unit.BYTES.format(t.largest))
                        .append(" | ")
                        .append(ReportTables.percent(t.largest, KAFKA_LIMIT))
                        .append(" | ")
                        .append(t.largestKey)
                        .append(" (")
                        .append(t.partition)
                        .append(", ")
                        .append(t.offset)
                        .append(") | ")
                        .append(Targets.Unit.BYTES.format((double) t.bytes / t.records))
                        .append(" |\n"));
        Topic top = largestTopic();
        md.append("| **all ")
                .append(topics.size())
                .append(" topics** | ")
                .append(String.format(Locale.ROOT, "%,d", records))
                .append(" | **")
                .append(Targets.Unit.BYTES.format(largest()))
                .append("** | ")
                .append(ReportTables.percent(largest(), KAFKA_LIMIT))
                .append(" | in `")
                .append(top == null ? "–" : top.name)
                .append("` | ")
                .append(records == 0 ? "–" : Targets.Unit.BYTES.format((double) bytes / records))
                .append(" |\n\n");
        if (refused.isEmpty()) {
            md.append(
                    "Records a service refused to write for their size (its log's `RecordTooLargeToSend`): none.\n\n");
        } else {
            md.append(
                    "**Records a service refused to write for their size** (its log's `RecordTooLargeToSend`; no topic "
                            + "holds them), the largest per topic:\n\n");
            refused.values()
                    .forEach(r -> md.append("- `")
                            .append(r.topic())
                            .append("`: ")
                            .append(Targets.Unit.BYTES.format(r.size()))
                            .append(String.format(Locale.ROOT, " (%,d B), ", r.size()))
                            .append(r.service())
                            .append('\n'));
            md.append('\n');
        }
        if (deadLetters.isEmpty()) {
            md.append("Dead letters written during the run: none.\n");
        } else {
            md.append("Dead letters written during the run (a record refused for its size is not on its topic; its "
                    + "letter is here):\n\n");
            deadLetters.forEach((topic, byError) -> md.append("- `")
                    .append(topic)
                    .append("`: ")
                    .append(String.join(
                            ", ",
                            byError.entrySet().stream()
                                    .map(e -> e.getKey() + " × " + e.getValue())
                                    .toList()))
                    .append('\n'));
        }
        return md.toString();
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** A key as the report can show it: UTF-8, at most 60 characters, nothing that breaks a table. */
    private static String printable(byte[] key) {
        if (key == null) {
            return "(no key)";
        }
        String text = new String(key, StandardCharsets.UTF_8).replaceAll("[\\p{Cntrl}|`\\uFFFD]", "·");
        return "`" + (text.length() > 60 ? text.substring(0, 60) + "…" : text) + "`";
    }
}
