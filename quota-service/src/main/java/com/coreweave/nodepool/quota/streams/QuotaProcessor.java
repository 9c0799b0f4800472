package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.quota.domain.PoolEntry;
import com.coreweave.nodepool.quota.domain.QuotaDecider;
import com.coreweave.nodepool.quota.domain.QuotaInput;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.quota.domain.QuotaRecord;
import com.coreweave.nodepool.quota.domain.QuotaRecords;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The single writer of one quota's ledger ({@code <org>/<zone>/<instanceType>}): applies each pool or limit change
 * with {@link QuotaDecider} in the same transaction as its outputs, so admitted counts never exceed the quota,
 * also across a crash. A ledger is read from the store once and kept in memory; each input writes only the records
 * it changed. Forwards, keyed by pool, every changed decision as an {@link Outbound} to {@code quota-checked}, or
 * as a {@link PoolDecision} for {@link DecisionPublisher} when the pool moved here from another ledger or left it
 * (its tombstone); keyed by capacity ledger, each decision and departure to {@code capacity-demanded}; and an
 * {@link Outbound} for every event.
 */
class QuotaProcessor implements Processor<String, QuotaInput, String, Object> {

  private final Clock clock;
  private final Map<String, QuotaLedger> loaded = new HashMap<>();
  /** Ledgers read as an earlier version stored them (whole): their first change writes every record. */
  private final Set<String> storedWhole = new HashSet<>();
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, QuotaRecord> ledgers;

  QuotaProcessor(Clock clock) {
    this.clock = clock;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    ledgers = context.getStateStore(StoreNames.QUOTA_LEDGERS);
    // Initialised again after the store was restored (a crash, a failed transaction): read every ledger afresh.
    loaded.clear();
    storedWhole.clear();
  }

  @Override
  public void process(Record<String, QuotaInput> record) {
    Instant now = clock.instant();
    QuotaLedger before = loaded.computeIfAbsent(record.key(), this::read);
    QuotaDecider.Result result = QuotaDecider.decide(before, record.value(), now);
    QuotaRecords.writes(before, result.ledger(), storedWhole.remove(record.key())).forEach((key, value) -> {
      if (value == null) {
        ledgers.delete(key);
      } else {
        ledgers.put(key, value);
      }
    });
    loaded.put(record.key(), result.ledger());
    for (PoolRef gone : result.gone()) {
      emit(gone.key().toString(), new PoolDecision(null, gone.uid()), now);
      toLedger(gone, CapacityDemanded.gone(gone.key().toString(), gone.uid()), now);
    }
    for (QuotaChecked decision : result.changed()) {
      String pool = decision.pool().key().toString();
      PoolEntry entry = result.ledger().pools().get(pool);
      emit(pool, entry != null && entry.moved() ? new PoolDecision(decision, null)
          : Outbound.to(Topics.QUOTA_CHECKED, decision), now);
      toLedger(decision.pool(), CapacityDemanded.of(decision), now);
    }
    RecordedEvents.byPool(result.events()).forEach((pool, events) -> emit(pool,
        Outbound.to(Topics.NODEPOOL_EVENT_RECORDED, events), now));
  }

  @Override
  public void close() {
    loaded.clear();
  }

  private QuotaLedger read(String key) {
    StoredQuotas.Read read = StoredQuotas.read(ledgers, QuotaKey.parse(key));
    if (read.storedWhole()) {
      storedWhole.add(key);
    }
    return read.ledger();
  }

  private void emit(String pool, Object value, Instant now) {
    context.forward(new Record<>(pool, value, now.toEpochMilli()));
  }

  /**
   * The capacity ledger of the pool's zone and type reads its demand straight from here, keyed by ledger: a hop
   * fewer than re-keying {@code quota-checked}. Both ledgers are the only writers of their keys, so one pool's
   * demands reach its capacity ledger in the order they were decided.
   */
  private void toLedger(PoolRef pool, CapacityDemanded demand, Instant now) {
    emit(CapacityDemanded.ledgerOf(pool).toString(), Outbound.to(Topics.CAPACITY_DEMANDED, demand), now);
  }
}
