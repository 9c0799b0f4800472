package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.topics.Topics;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Gives the pool's own partition the last word on {@code quota-checked} where two ledgers could disagree. A pool
 * deleted and re-created with another zone or instance type is decided by two ledgers on two partitions, whose
 * outputs can arrive in either order; so the decisions of a moved incarnation are published here only while it is
 * the one the pool currently is ({@link PoolRouter}'s route), and every tombstone only when no incarnation is live.
 * The compacted topic then never ends on a stale incarnation or on a tombstone for a live pool. Decisions of a pool
 * that never moved have no rival and are written by the ledger itself, a hop earlier.
 */
class DecisionPublisher implements Processor<String, PoolDecision, String, Outbound> {

  private ProcessorContext<String, Outbound> context;
  private KeyValueStore<String, PoolRoute> routes;

  @Override
  public void init(ProcessorContext<String, Outbound> context) {
    this.context = context;
    routes = context.getStateStore(StoreNames.POOL_ROUTES);
  }

  @Override
  public void process(Record<String, PoolDecision> record) {
    PoolRoute route = routes.get(record.key());
    PoolDecision decision = record.value();
    if (decision.checked() != null) {
      if (route != null && !route.gone() && route.uid().equals(decision.checked().pool().uid())) {
        context.forward(record.withValue(Outbound.to(Topics.QUOTA_CHECKED, decision.checked())));
      }
    } else if (route == null || route.gone()) {
      context.forward(record.withValue(Outbound.tombstone(Topics.QUOTA_CHECKED)));
    }
  }
}
