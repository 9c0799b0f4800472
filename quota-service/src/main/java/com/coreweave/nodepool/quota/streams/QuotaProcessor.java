package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.store.PrefixedRecords;
import com.coreweave.nodepool.quota.domain.QuotaDecider;
import com.coreweave.nodepool.quota.domain.QuotaInput;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.quota.domain.QuotaRecord;
import com.coreweave.nodepool.quota.domain.QuotaRecords;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The single writer of one quota's ledger ({@code <org>/<zone>/<instanceType>}): applies each pool or limit change with
 * {@link QuotaDecider} in the same transaction as its outputs, so admitted counts never exceed the quota, also across a
 * crash. A ledger is read from the store once and kept in memory; each input writes only the records it changed. Tells
 * every changed decision, and every incarnation that left, to the capacity ledger of the pool's zone and type
 * ({@code capacity-demanded}, keyed by that ledger), and records the events, keyed by pool.
 */
class QuotaProcessor implements Processor<String, QuotaInput, String, Outbound> {

    private final Clock clock;
    private final InjectedFaults faults;
    private final Map<String, QuotaLedger> loaded = new HashMap<>();
    private ProcessorContext<String, Outbound> context;
    private KeyValueStore<String, QuotaRecord> ledgers;

    QuotaProcessor(Clock clock, InjectedFaults faults) {
        this.clock = clock;
        this.faults = faults;
    }

    @Override
    public void init(ProcessorContext<String, Outbound> context) {
        this.context = context;
        ledgers = context.getStateStore(StoreNames.QUOTA_LEDGERS);
        // Initialised again after the store was restored (a crash, a failed transaction): read every ledger afresh.
        loaded.clear();
    }

    @Override
    public void process(Record<String, QuotaInput> record) {
        Instant now = clock.instant();
        QuotaLedger before = loaded.computeIfAbsent(record.key(), this::read);
        QuotaDecider.Result result = QuotaDecider.decide(before, record.value(), now, faults);
        QuotaRecords.writes(before, result.ledger())
                .forEach((key, value) -> PrefixedRecords.write(ledgers, key, value));
        loaded.put(record.key(), result.ledger());
        result.gone()
                .forEach(gone -> toLedger(gone, CapacityDemanded.gone(gone.key().toString(), gone.uid()), now));
        result.changed().forEach(decision -> toLedger(decision.pool(), CapacityDemanded.of(decision), now));
        RecordedEvents.byPool(result.events())
                .forEach((pool, events) -> RecordedEvents.chunked(events)
                        .forEach(chunk -> emit(pool, Outbound.to(Topics.NODEPOOL_EVENT_RECORDED, chunk), now)));
    }

    @Override
    public void close() {
        loaded.clear();
    }

    private QuotaLedger read(String key) {
        return StoredQuotas.read(ledgers, QuotaKey.parse(key));
    }

    private void emit(String key, Outbound outbound, Instant now) {
        context.forward(new Record<>(key, outbound, now.toEpochMilli()));
    }

    /**
     * The capacity ledger of the pool's zone and type reads its demand straight from here, keyed by ledger, without a
     * re-keying hop. Both ledgers are the only writers of their keys, so one pool's demands reach its capacity ledger
     * in the order they were decided.
     */
    private void toLedger(PoolRef pool, CapacityDemanded demand, Instant now) {
        emit(pool.ledgerKey().toString(), Outbound.to(Topics.CAPACITY_DEMANDED, demand), now);
    }
}
