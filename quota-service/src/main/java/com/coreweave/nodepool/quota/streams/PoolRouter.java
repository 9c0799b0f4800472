package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.quota.domain.PoolDemand;
import com.coreweave.nodepool.quota.domain.QuotaInput;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import java.time.Clock;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Re-keys pool facts from {@code <org>/<pool>} to the quota they draw on. A tombstone has no value to read the
 * quota from, so the route of every pool is kept (also once it is deleted); a pool re-created under the same name
 * with another zone or instance type leaves its old ledger before it joins the new one, and is marked as moved.
 */
class PoolRouter implements Processor<String, NodePoolAccepted, String, QuotaInput> {

  private final Clock clock;
  private ProcessorContext<String, QuotaInput> context;
  private KeyValueStore<String, PoolRoute> routes;

  PoolRouter(Clock clock) {
    this.clock = clock;
  }

  @Override
  public void init(ProcessorContext<String, QuotaInput> context) {
    this.context = context;
    routes = context.getStateStore(StoreNames.POOL_ROUTES);
  }

  @Override
  public void process(Record<String, NodePoolAccepted> record) {
    String pool = record.key();
    PoolRoute held = routes.get(pool);
    if (record.value() == null) {
      if (held != null && !held.gone()) {
        send(held.quotaKey(), new QuotaInput.PoolGone(pool, held.uid()));
        routes.put(pool, held.deleted());
      }
      return;
    }
    PoolDemand demand = PoolDemand.of(record.value());
    String quotaKey = demand.quotaKey().toString();
    if (held != null && !held.gone() && !held.quotaKey().equals(quotaKey)) {
      send(held.quotaKey(), new QuotaInput.PoolGone(pool, held.uid()));
    }
    // An incarnation that comes from another ledger (now or earlier) keeps its decisions on the pool's partition.
    boolean moved = held != null && (!held.quotaKey().equals(quotaKey)
        || held.uid().equals(demand.ref().uid()) && held.moved());
    routes.put(pool, new PoolRoute(quotaKey, demand.ref().uid(), false, moved));
    send(quotaKey, new QuotaInput.PoolChanged(moved ? demand.movedHere() : demand));
  }

  private void send(String quotaKey, QuotaInput input) {
    context.forward(new Record<>(quotaKey, input, clock.millis()));
  }
}
