package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.quota.domain.QuotaDecider;
import com.coreweave.nodepool.quota.domain.QuotaInput;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The single writer of one quota's ledger ({@code <org>/<zone>/<instanceType>}): applies each pool or limit change
 * with {@link QuotaDecider} in the same transaction as its outputs, so admitted counts never exceed the quota,
 * also across a crash. Forwards, keyed by pool, a {@link PoolDecision} for every changed decision (published by
 * {@link DecisionPublisher}) and an {@link Outbound} for every event.
 */
class QuotaProcessor implements Processor<String, QuotaInput, String, Object> {

  private final Clock clock;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, QuotaLedger> ledgers;

  QuotaProcessor(Clock clock) {
    this.clock = clock;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    ledgers = context.getStateStore(StoreNames.QUOTA_LEDGERS);
  }

  @Override
  public void process(Record<String, QuotaInput> record) {
    Instant now = clock.instant();
    QuotaLedger before = ledgers.get(record.key());
    QuotaDecider.Result result = QuotaDecider.decide(
        before == null ? QuotaLedger.empty(QuotaKey.parse(record.key())) : before, record.value(), now);
    if (result.ledger().isEmpty()) {
      ledgers.delete(record.key());
    } else {
      ledgers.put(record.key(), result.ledger());
    }
    result.gone().forEach(pool -> emit(pool.key().toString(), new PoolDecision(null, pool.uid()), now));
    result.changed().forEach(d -> emit(d.pool().key().toString(), new PoolDecision(d, null), now));
    result.events().forEach(e -> emit(e.org() + "/" + e.pool(), Outbound.to(Topics.NODEPOOL_EVENT_RECORDED, e),
        now));
  }

  private void emit(String pool, Object value, Instant now) {
    context.forward(new Record<>(pool, value, now.toEpochMilli()));
  }
}
