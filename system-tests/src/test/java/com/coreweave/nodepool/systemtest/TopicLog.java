package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The committed history of one topic as a dashboard sees it: read from the beginning with
 * {@code isolation.level=read_committed} (no consumer group, so the services' offsets are never touched), kept in
 * offset order per partition, and read further on every {@link #catchUp()} up to the partitions' last stable offset
 * (the end of what is committed when it is called). Only records whose key matches are kept. Not thread-safe: one
 * test thread owns it.
 */
final class TopicLog<T> implements AutoCloseable {

  /** One committed record: where it is, its key, its parsed value ({@code null}: a tombstone), its timestamp. */
  record Rec<T>(int partition, long offset, String key, T value, long timestamp) {

    boolean tombstone() {
      return value == null;
    }

    String where() {
      return "p" + partition + "@" + offset;
    }
  }

  /** How a record is read: the key it is kept under and its value ({@code null}: a tombstone); null to skip it. */
  interface Reader<T> {
    Rec<T> read(ConsumerRecord<String, String> record, Predicate<String> keys);
  }

  private final String topic;
  private final Reader<T> reader;
  private final Predicate<String> keys;
  private final KafkaConsumer<String, String> consumer;
  private final List<List<Rec<T>>> partitions = new ArrayList<>();
  private List<TopicPartition> assigned = List.of();

  TopicLog(String bootstrapServers, String topic, Class<T> type, Predicate<String> keys) {
    this(bootstrapServers, topic, (r, wanted) -> r.key() == null || !wanted.test(r.key()) ? null
        : new Rec<>(r.partition(), r.offset(), r.key(), r.value() == null ? null : Json.read(r.value(), type),
            r.timestamp()), keys);
  }

  private TopicLog(String bootstrapServers, String topic, Reader<T> reader, Predicate<String> keys) {
    this.topic = topic;
    this.reader = reader;
    this.keys = keys;
    this.consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000),
        new StringDeserializer(), new StringDeserializer());
  }

  /**
   * Reads every record committed so far (up to each partition's last stable offset, as it is when called) and
   * returns this log. Fails if that takes longer than {@code timeout}.
   */
  TopicLog<T> catchUp(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    if (assigned.isEmpty()) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        throw new AssertionError("topic " + topic + " does not exist");
      }
      assigned = infos.stream().map(i -> new TopicPartition(topic, i.partition()))
          .sorted((a, b) -> Integer.compare(a.partition(), b.partition())).toList();
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      assigned.forEach(p -> partitions.add(new ArrayList<>()));
    }
    // With read_committed, the end offsets are the last stable offsets: everything before them is decided.
    Map<TopicPartition, Long> ends = consumer.endOffsets(assigned, timeout);
    while (assigned.stream().anyMatch(p -> consumer.position(p, timeout) < ends.get(p))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("could not read " + topic + " up to " + ends + " within " + timeout);
      }
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
        Rec<T> read = reader.read(r, keys);
        if (read != null) {
          partitions.get(r.partition()).add(read);
        }
      }
    }
    return this;
  }

  /**
   * The quota-service's decision of each pool, as it tells them to the capacity ledgers on {@code capacity-demanded}
   * (keyed by ledger, the pool in the value): each record kept under its pool's key, with the decision, or as a
   * tombstone when the pool's incarnation left its quota. A pool's decisions all go to its ledger's partition, in the
   * order they were made. A record that is not a demand (another test's poison) is no decision of ours.
   */
  static TopicLog<QuotaChecked> quotaDecisions(String bootstrapServers, Predicate<String> pools) {
    return new TopicLog<>(bootstrapServers, Topics.CAPACITY_DEMANDED.name(), (r, wanted) -> {
      CapacityDemanded demand;
      try {
        demand = r.value() == null ? null : Json.read(r.value(), CapacityDemanded.class);
      } catch (IllegalArgumentException notADemand) {
        return null;
      }
      return demand == null || demand.pool() == null || !wanted.test(demand.pool()) ? null
          : new Rec<>(r.partition(), r.offset(), demand.pool(), demand.quota(), r.timestamp());
    }, pools);
  }

  /** Every kept record of one partition, in offset order. */
  List<Rec<T>> partition(int partition) {
    return Collections.unmodifiableList(partitions.get(partition));
  }

  int partitionCount() {
    return partitions.size();
  }

  /** Every kept record, one list per partition in partition order, each in offset order. */
  List<List<Rec<T>>> partitions() {
    return partitions(key -> true);
  }

  /** As {@link #partitions()}, only the records whose key matches. */
  List<List<Rec<T>>> partitions(Predicate<String> keys) {
    List<List<Rec<T>>> kept = new ArrayList<>();
    partitions.forEach(partition -> kept.add(partition.stream().filter(r -> keys.test(r.key())).toList()));
    return kept;
  }

  /** Every kept record, partition by partition, each in offset order. */
  List<Rec<T>> all() {
    List<Rec<T>> all = new ArrayList<>();
    partitions.forEach(all::addAll);
    return all;
  }

  int size() {
    return partitions.stream().mapToInt(List::size).sum();
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(2));
  }
}
