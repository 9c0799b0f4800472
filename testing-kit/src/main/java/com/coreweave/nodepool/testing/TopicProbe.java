package com.coreweave.nodepool.testing;

import com.coreweave.nodepool.schema.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes records to a topic and reads a topic from the beginning (committed records only, as every reader of our
 * topics does), the way a platform team or a dashboard would use the system.
 */
public final class TopicProbe implements AutoCloseable {

  private final String bootstrapServers;
  private final KafkaProducer<String, byte[]> producer;

  public TopicProbe(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
    this.producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
  }

  /** A record as read: key, value as text (null for a tombstone), headers as text. */
  public record Read(String key, String value, Map<String, String> headers, int partition, long offset) {

    public <T> T as(Class<T> type) {
      return Json.read(value, type);
    }
  }

  public void send(String topic, String key, String value) {
    sendBytes(topic, key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  public void sendJson(String topic, String key, Object value) {
    sendBytes(topic, key, value == null ? null : Json.bytes(value));
  }

  public void sendBytes(String topic, String key, byte[] value) {
    send(new ProducerRecord<>(topic, key, value));
  }

  /** To a partition of the caller's choice, as kcat -p or a librdkafka client with its own partitioner does. */
  public void sendToPartition(String topic, int partition, String key, String value) {
    send(new ProducerRecord<>(topic, partition, key, value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
  }

  private void send(ProducerRecord<String, byte[]> record) {
    String topic = record.topic();
    try {
      producer.send(record).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot write to " + topic + ": " + e.getMessage(), e);
    }
  }

  /** Every committed record of {@code topic} so far. */
  public List<Read> readAll(String topic) {
    List<Read> read = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = assignFromStart(consumer, topic);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      while (!partitions.stream().allMatch(p -> consumer.position(p) >= ends.get(p))) {
        poll(consumer, read);
      }
    }
    return read;
  }

  /**
   * Reads {@code topic} from the beginning until the records read so far satisfy {@code done}, or fails after
   * {@code timeout} showing what was read.
   */
  public List<Read> readUntil(String topic, Predicate<List<Read>> done, Duration timeout) {
    List<Read> read = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      assignFromStart(consumer, topic);
      Instant deadline = Instant.now().plus(timeout);
      while (!done.test(read)) {
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionError("after " + timeout + ", " + topic + " still lacks what was expected; read "
              + read.size() + " record(s): " + read);
        }
        poll(consumer, read);
      }
    }
    return read;
  }

  private static List<TopicPartition> assignFromStart(KafkaConsumer<String, byte[]> consumer, String topic) {
    List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
        .map(p -> new TopicPartition(topic, p.partition())).toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return partitions;
  }

  private static void poll(KafkaConsumer<String, byte[]> consumer, List<Read> read) {
    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
      read.add(new Read(r.key(), r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8),
          headers(r), r.partition(), r.offset()));
    }
  }

  private KafkaConsumer<String, byte[]> consumer() {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.GROUP_ID_CONFIG, "probe-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new ByteArrayDeserializer());
  }

  private static Map<String, String> headers(ConsumerRecord<String, byte[]> record) {
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    for (Header h : record.headers()) {
      headers.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
    }
    return headers;
  }

  @Override
  public void close() {
    producer.close();
  }
}
