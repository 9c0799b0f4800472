package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.CapacityLedger;
import com.coreweave.nodepool.capacity.domain.LedgerDecision;
import com.coreweave.nodepool.capacity.domain.LedgerInput;
import com.coreweave.nodepool.capacity.domain.LedgerState;
import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The single writer of one zone × instance type's ledger (its task owns the key): applies each input with
 * {@link CapacityLedger} and writes the new ledger and everything it decided in the task's transaction.
 */
class LedgerProcessor implements Processor<String, LedgerInput, String, Outbound> {

  private final CapacityLedger ledger;
  private final Clock clock;
  private ProcessorContext<String, Outbound> context;
  private KeyValueStore<String, LedgerState> ledgers;

  LedgerProcessor(CapacityLedger ledger, Clock clock) {
    this.ledger = ledger;
    this.clock = clock;
  }

  @Override
  public void init(ProcessorContext<String, Outbound> context) {
    this.context = context;
    ledgers = context.getStateStore(StoreNames.LEDGERS);
  }

  @Override
  public void process(Record<String, LedgerInput> record) {
    LedgerState stored = ledgers.get(record.key());
    LedgerState state = stored == null ? LedgerState.empty(ZoneTypeKey.parse(record.key())) : stored;
    LedgerDecision decision = ledger.apply(state, record.value(), clock.instant());
    // An input that changes nothing (a repeated decision, a duplicate release, a release or forget for a ledger that
    // never held anything) costs no write of the whole ledger to the store and its changelog.
    if (decision.changed()) {
      ledgers.put(record.key(), decision.state());
    }
    for (LedgerDecision.PoolUpdate update : decision.capacity()) {
      emit(update.pool(), update.checked() == null ? Outbound.tombstone(Topics.CAPACITY_CHECKED)
          : Outbound.to(Topics.CAPACITY_CHECKED, update.checked()));
    }
    decision.reclaims().forEach(r -> emit(r.pool().key().toString(), Outbound.to(Topics.SPOT_RECLAIM_REQUESTED, r)));
    decision.events().forEach(e -> emit(e.org() + "/" + e.pool(), Outbound.to(Topics.NODEPOOL_EVENT_RECORDED, e)));
  }

  private void emit(String key, Outbound outbound) {
    context.forward(new Record<>(key, outbound, clock.millis()));
  }
}
