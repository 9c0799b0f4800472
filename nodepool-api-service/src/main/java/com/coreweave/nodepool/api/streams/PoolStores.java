package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.domain.PlatformValidator;
import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Clock;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * What the pool processor's parts share within one task: its stores, the catalogue, and where outputs go. Every
 * change through it commits in the task's transaction.
 */
final class PoolStores {

  final KeyValueStore<String, PoolView> views;
  final KeyValueStore<String, PoolEvents> events;
  final KeyValueStore<String, RequestDecided> requestIds;
  final KeyValueStore<String, String> unvalidated;
  private final TimestampedKeyValueStore<String, InstanceType> catalogue;
  private final ProcessorContext<String, Outbound> context;
  private final Clock clock;

  PoolStores(ProcessorContext<String, Outbound> context, Clock clock) {
    this.context = context;
    this.clock = clock;
    views = context.getStateStore(StoreNames.POOL_VIEWS);
    events = context.getStateStore(StoreNames.POOL_EVENTS);
    requestIds = context.getStateStore(StoreNames.REQUEST_IDS);
    unvalidated = context.getStateStore(StoreNames.UNVALIDATED);
    catalogue = context.getStateStore(StoreNames.INSTANCE_TYPES);
  }

  ProcessorContext<String, Outbound> context() {
    return context;
  }

  void emit(String key, Outbound outbound) {
    context.forward(new Record<>(key, outbound, clock.millis()));
  }

  /** The platform's verdict on a spec, against the capacity-service's catalogue. */
  PlatformValidator.Verdict judge(NodePoolSpec spec) {
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

  /** Pools whose spec is not valid are judged again until it is (the catalogue may arrive or change). */
  void trackValidation(String key, NodePoolAccepted accepted) {
    if (accepted.validation().valid() || accepted.deleting()) {
      unvalidated.delete(key);
    } else {
      unvalidated.put(key, "");
    }
  }
}
