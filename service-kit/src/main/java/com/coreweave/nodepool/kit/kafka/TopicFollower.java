package com.coreweave.nodepool.kit.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Follows every partition of some topics on a thread of its own, outside any consumer group (assigned, so each
 * instance of a service sees every record), read_committed: the one loop behind the API's live views (the request
 * decisions a REST write waits for, the watches). It waits for the topics to exist, lets the {@link Start} choose
 * where each partition begins, then hands every polled batch, with the positions reached, to the {@link Receiver}.
 */
public final class TopicFollower implements AutoCloseable {

  private static final Logger LOG = Logger.getLogger(TopicFollower.class);
  private static final Duration POLL = Duration.ofMillis(500);
  private static final long TOPIC_WAIT_MILLIS = 200;

  /** Where each partition starts, given its first and next offsets. */
  @FunctionalInterface
  public interface Start {
    Map<TopicPartition, Long> offsets(Map<TopicPartition, Long> begins, Map<TopicPartition, Long> ends);

    /** Only what is written from now on. */
    static Start atEnd() {
      return (begins, ends) -> ends;
    }
  }

  /** Takes a polled batch and where each partition's reading stands after it. */
  @FunctionalInterface
  public interface Receiver {
    void receive(ConsumerRecords<String, byte[]> records, Map<TopicPartition, Long> positions);
  }

  private final String name;
  private final Set<String> topics;
  private final Consumer<String, byte[]> consumer;
  private final Start start;
  private final Receiver receiver;
  private volatile boolean positioned;

  TopicFollower(String name, Collection<String> topics, Consumer<String, byte[]> consumer, Start start,
      Receiver receiver) {
    this.name = name;
    this.topics = Set.copyOf(topics);
    this.consumer = consumer;
    this.start = start;
    this.receiver = receiver;
  }

  /** Starts following {@code topics} of the broker at {@code bootstrapServers}, under the client id {@code name}. */
  public static TopicFollower start(String bootstrapServers, String name, Collection<String> topics, Start start,
      Receiver receiver) {
    var consumer = new KafkaConsumer<>(Map.<String, Object>of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.CLIENT_ID_CONFIG, name),
        new StringDeserializer(), new ByteArrayDeserializer());
    return new TopicFollower(name, topics, consumer, start, receiver).startThread();
  }

  TopicFollower startThread() {
    Thread.ofPlatform().name(name).daemon().start(this::run);
    return this;
  }

  /** Whether every partition is positioned and being read (false before, and after the loop failed). */
  public boolean positioned() {
    return positioned;
  }

  void run() {
    try {
      List<TopicPartition> partitions = awaitPartitions();
      consumer.assign(partitions);
      Map<TopicPartition, Long> offsets = start.offsets(consumer.beginningOffsets(partitions),
          consumer.endOffsets(partitions));
      offsets.forEach(consumer::seek);
      partitions.forEach(consumer::position);
      positioned = true;
      while (true) {
        ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition partition : partitions) {
          positions.put(partition, consumer.position(partition));
        }
        receiver.receive(records, positions);
      }
    } catch (WakeupException | InterruptedException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.errorf(e, "%s stopped following %s", name, topics);
    } finally {
      positioned = false;
      consumer.close();
    }
  }

  /** Every partition of the topics, once all of them exist (TopicCreator may run on the same start-up event). */
  private List<TopicPartition> awaitPartitions() throws InterruptedException {
    while (true) {
      List<TopicPartition> partitions = topics.stream()
          .flatMap(topic -> consumer.partitionsFor(topic).stream())
          .map(info -> new TopicPartition(info.topic(), info.partition()))
          .toList();
      if (partitions.stream().map(TopicPartition::topic).distinct().count() == topics.size()) {
        return partitions;
      }
      Thread.sleep(TOPIC_WAIT_MILLIS);
    }
  }

  /** Stops the loop; the consumer is closed on its own thread. */
  @Override
  public void close() {
    consumer.wakeup();
  }
}
