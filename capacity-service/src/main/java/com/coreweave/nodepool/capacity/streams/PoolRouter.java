package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.LedgerInput;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Re-keys quota decisions from {@code <org>/<pool>} to the ledger that serves the pool, {@code <zone>/<type>}.
 * A tombstone carries no pool, so the route of every pool is kept (in the pool's own partition) to tell its ledger
 * that the pool is gone.
 */
class PoolRouter implements Processor<String, QuotaChecked, String, LedgerInput> {

  private final Catalogue catalogue;
  private ProcessorContext<String, LedgerInput> context;
  private KeyValueStore<String, PoolRoute> routes;

  PoolRouter(Catalogue catalogue) {
    this.catalogue = catalogue;
  }

  @Override
  public void init(ProcessorContext<String, LedgerInput> context) {
    this.context = context;
    routes = context.getStateStore(StoreNames.POOL_ROUTES);
  }

  @Override
  public void process(Record<String, QuotaChecked> record) {
    String pool = record.key();
    PoolRoute held = routes.get(pool);
    QuotaChecked checked = record.value();
    PoolRef ref = checked == null ? null : checked.pool();
    // Demand for a type not offered in the zone is always 0 (the reader refuses more): no ledger serves it.
    boolean served = ref != null && catalogue.refusal(ref.zone(), ref.instanceType()).isEmpty();
    String ledger = served ? ref.zone() + "/" + ref.instanceType() : null;
    if (held != null && !held.ledger().equals(ledger)) {
      context.forward(record.withKey(held.ledger()).withValue(new LedgerInput.Forget(pool, held.poolUid())));
    }
    if (!served) {
      routes.delete(pool);
      return;
    }
    routes.put(pool, new PoolRoute(ledger, ref.uid()));
    context.forward(record.withKey(ledger).withValue(new LedgerInput.Demand(pool, checked)));
  }
}
