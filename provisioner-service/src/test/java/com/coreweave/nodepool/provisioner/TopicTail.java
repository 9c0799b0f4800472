package com.coreweave.nodepool.provisioner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Follows one topic from its beginning, committed records only, keeping what it read: each {@link #read()} fetches
 * just what arrived since, so tests can poll often without re-reading the topic.
 */
final class TopicTail implements AutoCloseable {

  /** One record as read: its key and its value as text. */
  record Read(String key, String value) {
  }

  private final KafkaConsumer<String, String> consumer;
  private final List<TopicPartition> partitions;
  private final List<Read> read = new ArrayList<>();

  TopicTail(String bootstrapServers, String topic) {
    consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.GROUP_ID_CONFIG, "tail-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer());
    partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /** Every record so far, in the order of its partition. */
  synchronized List<Read> read() {
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
    while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
        read.add(new Read(r.key(), r.value()));
      }
    }
    return List.copyOf(read);
  }

  @Override
  public synchronized void close() {
    consumer.close();
  }
}
