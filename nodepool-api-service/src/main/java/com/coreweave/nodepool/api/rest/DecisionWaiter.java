package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.topics.Topics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * Lets a REST write wait for the pool processor's answer: reads every committed {@code nodepool-request-decided}
 * record from the moment this instance started and completes the call waiting for that request id. Assigned (not
 * subscribed), so every instance sees every answer, and positioned at the end before the first request is taken.
 */
@ApplicationScoped
public class DecisionWaiter {

  private static final Logger LOG = Logger.getLogger(DecisionWaiter.class);

  @Inject
  KafkaSettings settings;

  private final Map<String, CompletableFuture<RequestDecided>> waiting = new ConcurrentHashMap<>();
  private KafkaConsumer<String, byte[]> consumer;
  private Thread poller;
  private volatile boolean ready;

  void start(@Observes StartupEvent event) {
    consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.CLIENT_ID_CONFIG, "request-decisions"),
        new StringDeserializer(), new ByteArrayDeserializer());
    poller = Thread.ofPlatform().name("request-decisions").daemon().start(this::run);
  }

  private void run() {
    try {
      List<TopicPartition> partitions = List.of();
      while (partitions.isEmpty()) {
        // The topic may not exist yet: TopicCreator runs on the same start-up event.
        partitions = consumer.partitionsFor(Topics.NODEPOOL_REQUEST_DECIDED.name()).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        if (partitions.isEmpty()) {
          Thread.sleep(200);
        }
      }
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position);
      ready = true;
      while (true) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          complete(record);
        }
      }
    } catch (WakeupException | InterruptedException e) {
      // shutting down
    } catch (RuntimeException e) {
      LOG.error("request-decision reader stopped", e);
      ready = false;
    } finally {
      consumer.close();
    }
  }

  private void complete(ConsumerRecord<String, byte[]> record) {
    try {
      RequestDecided decided = Json.read(record.value(), RequestDecided.class);
      CompletableFuture<RequestDecided> future = waiting.remove(decided.requestId());
      if (future != null) {
        future.complete(decided);
      }
    } catch (RuntimeException e) {
      LOG.warnf("unreadable request decision at %s-%d@%d: %s", record.topic(), record.partition(), record.offset(),
          e.getMessage());
    }
  }

  /** Whether answers can be awaited yet (this instance is positioned on the decisions topic). */
  public boolean ready() {
    return ready;
  }

  /** Registers interest in {@code requestId}; call before the request is written so the answer cannot be missed. */
  public CompletableFuture<RequestDecided> expect(String requestId) {
    return waiting.computeIfAbsent(requestId, id -> new CompletableFuture<>());
  }

  /** The answer, or null after {@code timeout}. */
  public RequestDecided await(String requestId, CompletableFuture<RequestDecided> answer, Duration timeout) {
    try {
      return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      waiting.remove(requestId, answer);
    }
  }

  void stop(@Observes ShutdownEvent event) {
    if (consumer != null) {
      consumer.wakeup();
    }
  }
}
