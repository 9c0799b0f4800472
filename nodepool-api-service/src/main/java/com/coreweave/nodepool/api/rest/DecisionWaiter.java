package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.kafka.TopicFollower;
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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

/**
 * Lets a REST write wait for the pool processor's answer: follows every committed {@code nodepool-request-decided}
 * record from the moment this instance started ({@link TopicFollower}, so every instance sees every answer) and
 * completes the call waiting for that request id. When the pool processor of this instance decided the request, it
 * answers at once, as its transaction commits ({@link #answer}); the topic then brings the same answer again, which
 * finds nobody waiting. Requests are taken once it is positioned at the end.
 */
@ApplicationScoped
public class DecisionWaiter {

  private static final Logger LOG = Logger.getLogger(DecisionWaiter.class);

  @Inject
  KafkaSettings settings;

  private final Map<String, CompletableFuture<RequestDecided>> waiting = new ConcurrentHashMap<>();
  private TopicFollower decisions;

  void start(@Observes StartupEvent event) {
    decisions = TopicFollower.start(settings.bootstrapServers(), "request-decisions",
        List.of(Topics.NODEPOOL_REQUEST_DECIDED.name()), TopicFollower.Start.atEnd(),
        (records, positions) -> records.forEach(this::complete));
  }

  private void complete(ConsumerRecord<String, byte[]> record) {
    try {
      answer(Json.read(record.value(), RequestDecided.class));
    } catch (RuntimeException e) {
      LOG.warnf("unreadable request decision at %s-%d@%d: %s", record.topic(), record.partition(), record.offset(),
          e.getMessage());
    }
  }

  /** Completes the call waiting for {@code decided}'s request, if one does: the answer is committed. */
  public void answer(RequestDecided decided) {
    CompletableFuture<RequestDecided> future = waiting.remove(decided.requestId());
    if (future != null) {
      future.complete(decided);
    }
  }

  /** Whether answers can be awaited yet (this instance is positioned on the decisions topic). */
  public boolean ready() {
    return decisions != null && decisions.positioned();
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
    if (decisions != null) {
      decisions.close();
    }
  }
}
