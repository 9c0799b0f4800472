package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.EventFolder;
import com.coreweave.nodepool.api.domain.PlatformValidator;
import com.coreweave.nodepool.api.domain.PoolDecider;
import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolRequest;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.PoolViewReducer;
import com.coreweave.nodepool.api.domain.ResourceVersions;
import com.coreweave.nodepool.api.domain.StatusProjector;
import com.coreweave.nodepool.kit.streams.Inputs;
import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The single writer of each pool's accepted state, status and events. Requests are decided by
 * {@link PoolDecider}; facts from the other services are folded by {@link PoolViewReducer}; the status comes from
 * {@link StatusProjector}. Everything it changes (stores and outputs) commits in one transaction.
 */
class PoolProcessor implements Processor<String, Object, String, Outbound> {

  private static final Duration REQUEST_ID_SWEEP = Duration.ofMinutes(10);

  private final ApiSettings settings;
  private final Clock clock;
  private ProcessorContext<String, Outbound> context;
  private KeyValueStore<String, PoolView> views;
  private KeyValueStore<String, PoolEvents> events;
  private KeyValueStore<String, RequestDecided> requestIds;
  private KeyValueStore<String, String> unvalidated;
  private TimestampedKeyValueStore<String, InstanceType> catalogue;

  PoolProcessor(ApiSettings settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
  }

  @Override
  public void init(ProcessorContext<String, Outbound> context) {
    this.context = context;
    views = context.getStateStore(StoreNames.POOL_VIEWS);
    events = context.getStateStore(StoreNames.POOL_EVENTS);
    requestIds = context.getStateStore(StoreNames.REQUEST_IDS);
    unvalidated = context.getStateStore(StoreNames.UNVALIDATED);
    catalogue = context.getStateStore(StoreNames.INSTANCE_TYPES);
    context.schedule(settings.revalidateInterval(), PunctuationType.WALL_CLOCK_TIME, t -> revalidate());
    context.schedule(REQUEST_ID_SWEEP, PunctuationType.WALL_CLOCK_TIME, t -> forgetOldRequestIds());
  }

  @Override
  public void process(Record<String, Object> record) {
    Instant now = clock.instant();
    switch (record.value()) {
      case PoolRequest request -> onRequest(record.key(), request, now);
      case RecordedEvent event -> onEvent(record.key(), event);
      default -> onFact(record.key(), record.value(), now);
    }
  }

  private void onRequest(String key, PoolRequest request, Instant now) {
    String requestKey = key + "|" + request.id();
    RequestDecided earlier = requestIds.get(requestKey);
    if (earlier != null) {
      // A repeated id changes nothing; the earlier answer is given again for a caller retrying with it.
      emit(key, Outbound.to(Topics.NODEPOOL_REQUEST_DECIDED, earlier));
      return;
    }
    RecordMetadata meta = context.recordMetadata().orElseThrow();
    PoolView view = views.get(key);
    // A uid must be unique across clusters and resets, so it is random (a transaction that aborts takes its uid
    // with it, so a replay cannot leak a second one).
    PoolDecider.WriteContext write = new PoolDecider.WriteContext(now,
        ResourceVersions.next(view == null ? null : view.accepted(), now), UUID.randomUUID().toString(),
        settings.defaultZone());
    PoolDecider.Decision decision = PoolDecider.decide(request, view == null ? null : view.accepted(), write,
        this::judge);
    requestIds.put(requestKey, decision.answer());
    emit(key, Outbound.to(Topics.NODEPOOL_REQUEST_DECIDED, decision.answer()));
    if (decision.answer().outcome() == RequestDecided.Outcome.REJECTED && !request.fromRest()) {
      var status = decision.answer().error();
      Code code = Objects.requireNonNullElse(Code.ofHeader(status.getReason()), Code.INVALID);
      var headers = Inputs.headers(new Rejection(code, status.getMessage()), meta.topic(), meta.partition(),
          meta.offset(), ApiTopology.SERVICE, clock);
      context.forward(new Record<>(key, Outbound.to(Topics.NODEPOOL_REQUESTED_DLQ, request.raw()),
          now.toEpochMilli(), headers));
      if (view != null) {
        // A platform team without access to the DLQ sees on the pool itself why its request changed nothing.
        onEvent(key, PoolDecider.refused(request, view.accepted(), status, now));
      }
    }
    if (decision.next() != null) {
      NodePoolAccepted next = decision.next();
      PoolView updated = view == null || !view.uid().equals(next.uid()) ? PoolView.of(next) : view.withAccepted(next);
      trackValidation(key, next);
      emit(key, Outbound.to(Topics.NODEPOOL_ACCEPTED, next));
      publish(key, updated, now);
    }
    decision.events().forEach(e -> onEvent(key, e));
  }

  private void onFact(String key, Object fact, Instant now) {
    PoolView view = views.get(key);
    if (view == null) {
      return;
    }
    PoolView updated = PoolViewReducer.apply(view, fact, now);
    if (updated == view) {
      return;
    }
    publish(key, updated, now);
    finalizeIfRemoved(key, updated, now);
  }

  private void onEvent(String key, RecordedEvent recorded) {
    PoolView view = views.get(key);
    if (view == null || !view.uid().equals(recorded.poolUid())) {
      return;
    }
    PoolEvents current = events.get(key);
    EventFolder.Folded folded = EventFolder.fold(current == null ? PoolEvents.EMPTY : current, recorded);
    if (folded.changed() != null) {
      events.put(key, folded.events());
      emit(key, Outbound.to(Topics.NODEPOOL_EVENTS, folded.changed()));
    }
  }

  /** Stores the view and publishes the resource when its projection changed. */
  private void publish(String key, PoolView view, Instant now) {
    NodePool projected = StatusProjector.project(view, now);
    PoolView stored = view;
    if (!projected.equals(view.published())) {
      emit(key, Outbound.to(Topics.NODEPOOL_STATUS, projected));
      stored = view.withPublished(projected);
    }
    views.put(key, stored);
  }

  /** A deleting pool whose nodes are all gone is deleted: last status, CWNodePoolDeleted, then tombstones. */
  private void finalizeIfRemoved(String key, PoolView view, Instant now) {
    var reconciled = view.reconciled();
    if (!view.accepted().deleting() || reconciled == null || !reconciled.nodesRemoved() || !view.nodes().isEmpty()) {
      return;
    }
    PoolRef ref = PoolRef.of(view.accepted());
    onEvent(key, RecordedEvent.ofPool(ref, CwEvent.CWNodePoolDeleted, "NodePool " + ref.pool() + " deleted.",
        ref.uid(), ApiTopology.SERVICE, now));
    emit(key, Outbound.tombstone(Topics.NODEPOOL_STATUS));
    emit(key, Outbound.tombstone(Topics.NODEPOOL_ACCEPTED));
    views.delete(key);
    events.delete(key);
    unvalidated.delete(key);
  }

  private PlatformValidator.Verdict judge(NodePoolSpec spec) {
    return PlatformValidator.judge(spec, type -> {
      ValueAndTimestamp<InstanceType> entry = catalogue.get(type);
      return entry == null ? null : entry.value();
    }, catalogueLoaded());
  }

  /** Whether the capacity-service has published the catalogue (an estimate of the entries may say 0 too early). */
  private boolean catalogueLoaded() {
    try (var entries = catalogue.all()) {
      return entries.hasNext();
    }
  }

  private void trackValidation(String key, NodePoolAccepted accepted) {
    if (accepted.validation().valid() || accepted.deleting()) {
      unvalidated.delete(key);
    } else {
      unvalidated.put(key, "");
    }
  }

  /** Pools not valid yet are judged again: the catalogue may have arrived or changed since. */
  private void revalidate() {
    Instant now = clock.instant();
    List<String> keys = new ArrayList<>();
    try (KeyValueIterator<String, String> it = unvalidated.all()) {
      it.forEachRemaining(kv -> keys.add(kv.key));
    }
    for (String key : keys) {
      PoolView view = views.get(key);
      if (view == null || view.accepted().deleting()) {
        unvalidated.delete(key);
        continue;
      }
      PlatformValidator.Verdict verdict = judge(view.accepted().nodePool().spec());
      if (verdict.validation().equals(view.accepted().validation())) {
        continue;
      }
      NodePoolAccepted next = new NodePoolAccepted(view.accepted().org(), view.accepted().nodePool(),
          verdict.validation(), now, verdict.validation().valid() ? null : view.accepted().lastValid());
      trackValidation(key, next);
      emit(key, Outbound.to(Topics.NODEPOOL_ACCEPTED, next));
      publish(key, view.withAccepted(next), now);
      PoolRef ref = PoolRef.of(next);
      verdict.events().forEach(f -> onEvent(key, RecordedEvent.ofPool(ref, f.event(), f.message(),
          ref.uid() + "/" + ref.generation(), ApiTopology.SERVICE, now)));
    }
  }

  private void forgetOldRequestIds() {
    Instant cutoff = clock.instant().minus(settings.requestIdRetention());
    List<String> expired = new ArrayList<>();
    try (KeyValueIterator<String, RequestDecided> it = requestIds.all()) {
      while (it.hasNext()) {
        KeyValue<String, RequestDecided> kv = it.next();
        if (kv.value.decidedAt().isBefore(cutoff)) {
          expired.add(kv.key);
        }
      }
    }
    expired.forEach(requestIds::delete);
  }

  private void emit(String key, Outbound outbound) {
    context.forward(new Record<>(key, outbound, clock.millis()));
  }
}
