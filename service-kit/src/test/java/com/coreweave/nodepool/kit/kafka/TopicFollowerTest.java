package com.coreweave.nodepool.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TopicFollowerTest {

    private static final TopicPartition DECIDED_0 = new TopicPartition("decided", 0);
    private static final TopicPartition DECIDED_1 = new TopicPartition("decided", 1);

    private static final Duration PAUSE = Duration.ofMillis(300);

    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest");
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final Map<TopicPartition, Long> lastPositions = new HashMap<>();
    private TopicFollower follower;

    @AfterEach
    void close() {
        if (follower != null) {
            follower.close();
        }
    }

    @Test
    void waitsForTheTopicThenReadsOnlyWhatIsWrittenAfterItsStart() throws Exception {
        follower = follow(TopicFollower.Start.atEnd());
        Thread.sleep(300);
        assertThat(follower.positioned())
                .as("positioned before the topic exists")
                .isFalse();

        consumer.updateBeginningOffsets(Map.of(DECIDED_0, 0L, DECIDED_1, 0L));
        consumer.updateEndOffsets(Map.of(DECIDED_0, 5L, DECIDED_1, 2L));
        consumer.updatePartitions("decided", List.of(partition(0), partition(1)));
        await(follower::positioned);

        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(DECIDED_0, 5, "a"));
            consumer.addRecord(record(DECIDED_1, 2, "b"));
        });
        await(() -> received.size() == 2);
        assertThat(received).containsExactlyInAnyOrder("decided-0@5:a", "decided-1@2:b");
        synchronized (lastPositions) {
            assertThat(lastPositions).containsEntry(DECIDED_0, 6L).containsEntry(DECIDED_1, 3L);
        }
    }

    @Test
    void startsWhereTheStartSays() throws Exception {
        consumer.updateBeginningOffsets(Map.of(DECIDED_0, 3L, DECIDED_1, 0L));
        consumer.updateEndOffsets(Map.of(DECIDED_0, 10L, DECIDED_1, 10L));
        consumer.updatePartitions("decided", List.of(partition(0), partition(1)));
        Map<TopicPartition, Long> seen = new HashMap<>();
        // The last 8 records of each partition, as far as the log still has them.
        follower = follow((begins, ends) -> {
            seen.putAll(begins);
            Map<TopicPartition, Long> offsets = new HashMap<>();
            ends.forEach((tp, end) -> offsets.put(tp, Math.max(begins.get(tp), end - 8)));
            return offsets;
        });
        await(follower::positioned);
        assertThat(seen).containsEntry(DECIDED_0, 3L).containsEntry(DECIDED_1, 0L);
        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(DECIDED_0, 3, "kept"));
            consumer.addRecord(record(DECIDED_1, 2, "kept too"));
        });
        await(() -> received.size() == 2);
        assertThat(received).containsExactlyInAnyOrder("decided-0@3:kept", "decided-1@2:kept too");
    }

    @Test
    void aReceiverFailingOnOneRecordHasOnlyThatRecordSkipped() throws Exception {
        List<String> taken = new CopyOnWriteArrayList<>();
        follower = new TopicFollower(
                        "test-follower",
                        List.of("decided"),
                        consumer,
                        TopicFollower.Start.atEnd(),
                        (records, positions) -> records.forEach(r -> {
                            String value = new String(r.value(), StandardCharsets.UTF_8);
                            if (value.equals("bad")) {
                                throw new IllegalStateException("bug in the receiver");
                            }
                            taken.add(value);
                        }),
                        PAUSE,
                        registry)
                .startThread();
        positionAt(0);
        await(follower::positioned);
        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(DECIDED_0, 0, "a"));
            consumer.addRecord(record(DECIDED_0, 1, "bad"));
            consumer.addRecord(record(DECIDED_0, 2, "c"));
        });
        await(() -> taken.contains("c"));
        consumer.schedulePollTask(() -> consumer.addRecord(record(DECIDED_0, 3, "d")));
        await(() -> taken.contains("d"));
        // The batch is handed over again one by one, so "a", taken before "bad" failed, comes twice.
        assertThat(taken).containsExactly("a", "a", "c", "d");
        assertThat(follower.positioned()).isTrue();
        assertThat(failures()).isEqualTo(2);
    }

    @Test
    void aConsumerFailureStartsTheLoopAgainFromWhereItHadRead() throws Exception {
        follower = follow(TopicFollower.Start.atEnd());
        positionAt(0);
        await(follower::positioned);
        consumer.schedulePollTask(() -> consumer.addRecord(record(DECIDED_0, 0, "before")));
        await(() -> received.size() == 1);

        consumer.setPollException(new KafkaException("the broker went away"));
        await(() -> !follower.positioned());
        assertThat(failures()).isEqualTo(1);
        await(follower::positioned);
        consumer.schedulePollTask(() -> consumer.addRecord(record(DECIDED_0, 1, "after")));
        await(() -> received.size() == 2);
        assertThat(received).containsExactly("decided-0@0:before", "decided-0@1:after");
    }

    @Test
    void closeStopsTheLoopAndClosesTheConsumer() throws Exception {
        consumer.updateBeginningOffsets(Map.of(DECIDED_0, 0L));
        consumer.updateEndOffsets(Map.of(DECIDED_0, 0L));
        consumer.updatePartitions("decided", List.of(partition(0)));
        follower = follow(TopicFollower.Start.atEnd());
        await(follower::positioned);
        follower.close();
        await(consumer::closed);
        assertThat(follower.positioned()).isFalse();
    }

    private TopicFollower follow(TopicFollower.Start start) {
        return new TopicFollower(
                        "test-follower",
                        List.of("decided"),
                        consumer,
                        start,
                        (records, positions) -> {
                            records.forEach(r -> received.add(r.topic() + "-" + r.partition() + "@" + r.offset() + ":"
                                    + new String(r.value(), StandardCharsets.UTF_8)));
                            synchronized (lastPositions) {
                                lastPositions.putAll(positions);
                            }
                        },
                        PAUSE,
                        registry)
                .startThread();
    }

    private void positionAt(long offset) {
        consumer.updateBeginningOffsets(Map.of(DECIDED_0, offset));
        consumer.updateEndOffsets(Map.of(DECIDED_0, offset));
        consumer.updatePartitions("decided", List.of(partition(0)));
    }

    private double failures() {
        return registry.get("nodepool.topic.follower.failures")
                .tag("follower", "test-follower")
                .counter()
                .count();
    }

    private static PartitionInfo partition(int partition) {
        Node node = new Node(0, "localhost", 9092);
        return new PartitionInfo("decided", partition, node, new Node[] {node}, new Node[] {node});
    }

    private static ConsumerRecord<String, byte[]> record(TopicPartition tp, long offset, String value) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, "key", value.getBytes(StandardCharsets.UTF_8));
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
