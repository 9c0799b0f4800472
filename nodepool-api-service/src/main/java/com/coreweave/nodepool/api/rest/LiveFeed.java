package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.KubeEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * The live side of the API for dashboards: follows the outbound topics {@code nodepool-status} and
 * {@code nodepool-events} from the moment this instance started and hands each change to the watchers of that org.
 * Every instance follows every partition, so a watcher on any instance sees every pool of its org.
 */
@ApplicationScoped
public class LiveFeed {

  private static final Logger LOG = Logger.getLogger(LiveFeed.class);

  /** A change of a pool: its new state, or null when it was deleted. */
  public record PoolChange(PoolKey key, NodePool pool) {
  }

  /** A created or updated Kubernetes Event of a pool. */
  public record EventChange(PoolKey key, KubeEvent event) {
  }

  private record Watcher<T>(String org, Consumer<T> sink) {

    boolean sees(PoolKey key) {
      return org == null || org.equals(key.org());
    }
  }

  @Inject
  KafkaSettings settings;

  private final List<Watcher<PoolChange>> poolWatchers = new CopyOnWriteArrayList<>();
  private final List<Watcher<EventChange>> eventWatchers = new CopyOnWriteArrayList<>();
  private KafkaConsumer<String, byte[]> consumer;

  void start(@Observes StartupEvent event) {
    consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.CLIENT_ID_CONFIG, "live-feed"),
        new StringDeserializer(), new ByteArrayDeserializer());
    Thread.ofPlatform().name("live-feed").daemon().start(this::run);
  }

  /** Registers a watcher of one org's pools (every org's when null); the returned runnable unregisters it. */
  public Runnable watchPools(String org, Consumer<PoolChange> sink) {
    Watcher<PoolChange> watcher = new Watcher<>(org, sink);
    poolWatchers.add(watcher);
    return () -> poolWatchers.remove(watcher);
  }

  /** Registers a watcher of one org's events (every org's when null); the returned runnable unregisters it. */
  public Runnable watchEvents(String org, Consumer<EventChange> sink) {
    Watcher<EventChange> watcher = new Watcher<>(org, sink);
    eventWatchers.add(watcher);
    return () -> eventWatchers.remove(watcher);
  }

  private void run() {
    try {
      Set<String> topics = Set.of(Topics.NODEPOOL_STATUS.name(), Topics.NODEPOOL_EVENTS.name());
      List<TopicPartition> partitions = List.of();
      while (partitions.size() < 2) {
        partitions = topics.stream().flatMap(t -> consumer.partitionsFor(t).stream())
            .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        if (partitions.stream().map(TopicPartition::topic).distinct().count() < 2) {
          partitions = List.of();
          Thread.sleep(200);
        }
      }
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position);
      while (true) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          dispatch(record);
        }
      }
    } catch (WakeupException | InterruptedException e) {
      // shutting down
    } catch (RuntimeException e) {
      LOG.error("live feed stopped", e);
    } finally {
      consumer.close();
    }
  }

  private void dispatch(ConsumerRecord<String, byte[]> record) {
    try {
      PoolKey key = PoolKey.parse(record.key());
      if (record.topic().equals(Topics.NODEPOOL_STATUS.name())) {
        PoolChange change = new PoolChange(key, record.value() == null ? null
            : Json.read(record.value(), NodePool.class));
        poolWatchers.stream().filter(w -> w.sees(key)).forEach(w -> w.sink().accept(change));
      } else if (record.value() != null) {
        EventChange change = new EventChange(key, Json.read(record.value(), KubeEvent.class));
        eventWatchers.stream().filter(w -> w.sees(key)).forEach(w -> w.sink().accept(change));
      }
    } catch (RuntimeException e) {
      LOG.warnf("unreadable record on %s-%d@%d: %s", record.topic(), record.partition(), record.offset(),
          e.getMessage());
    }
  }

  void stop(@Observes ShutdownEvent event) {
    if (consumer != null) {
      consumer.wakeup();
    }
  }
}
