package com.coreweave.nodepool.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TopicFollowerTest {

  private static final TopicPartition DECIDED_0 = new TopicPartition("decided", 0);
  private static final TopicPartition DECIDED_1 = new TopicPartition("decided", 1);

  private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest");
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
    assertThat(follower.positioned()).as("positioned before the topic exists").isFalse();

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
  void aFailingReceiverStopsTheLoopAndItSaysSo() throws Exception {
    consumer.updateBeginningOffsets(Map.of(DECIDED_0, 0L));
    consumer.updateEndOffsets(Map.of(DECIDED_0, 0L));
    consumer.updatePartitions("decided", List.of(partition(0)));
    follower = new TopicFollower("test-follower", List.of("decided"), consumer, TopicFollower.Start.atEnd(),
        (records, positions) -> {
          if (!records.isEmpty()) {
            throw new IllegalStateException("bug in the receiver");
          }
        }).startThread();
    await(follower::positioned);
    consumer.schedulePollTask(() -> consumer.addRecord(record(DECIDED_0, 0, "x")));
    await(() -> !follower.positioned());
    await(consumer::closed);
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
    return new TopicFollower("test-follower", List.of("decided"), consumer, start, (records, positions) -> {
      records.forEach(r -> received.add(r.topic() + "-" + r.partition() + "@" + r.offset() + ":"
          + new String(r.value(), StandardCharsets.UTF_8)));
      synchronized (lastPositions) {
        lastPositions.putAll(positions);
      }
    }).startThread();
  }

  private static PartitionInfo partition(int partition) {
    Node node = new Node(0, "localhost", 9092);
    return new PartitionInfo("decided", partition, node, new Node[] {node}, new Node[] {node});
  }

  private static ConsumerRecord<String, byte[]> record(TopicPartition tp, long offset, String value) {
    return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, "key",
        value.getBytes(StandardCharsets.UTF_8));
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
