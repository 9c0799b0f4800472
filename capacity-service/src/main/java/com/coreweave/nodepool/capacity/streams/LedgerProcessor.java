package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.CapacityLedger;
import com.coreweave.nodepool.capacity.domain.Ledger;
import com.coreweave.nodepool.capacity.domain.LedgerDecision;
import com.coreweave.nodepool.capacity.domain.LedgerInput;
import com.coreweave.nodepool.capacity.domain.LedgerRecord;
import com.coreweave.nodepool.capacity.domain.Machine;
import com.coreweave.nodepool.kit.streams.commit.CommitOutputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.store.PrefixedRecords;
import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The single writer of the ledgers of one partition (its task owns their keys): applies each input with
 * {@link CapacityLedger} and writes the records it changed, and everything it decided, in the task's transaction. Each
 * ledger is read from the store once and then kept in memory, current with every input. A pool's
 * {@code capacity-checked} is written once per commit, its last decision listing what the pool holds then
 * ({@link PendingChecks}, {@link CommitOutputs}); spot reclaims and events that travel on their own go at once, and so
 * does the ledger's {@code fleet-availability} when its total, free or queued machines changed.
 */
class LedgerProcessor implements Processor<String, LedgerInput, String, Outbound> {

    private final CapacityLedger ledger;
    private final Clock clock;
    private final Map<String, Ledger> loaded = new HashMap<>();
    /** The availability last published of each ledger of this task since it started: published again on a change. */
    private final Map<String, FleetAvailability> published = new HashMap<>();

    private PendingChecks pending;
    private CommitOutputs<Outbound> checks;
    private ProcessorContext<String, Outbound> context;
    private KeyValueStore<String, LedgerRecord> store;

    LedgerProcessor(CapacityLedger ledger, Clock clock) {
        this.ledger = ledger;
        this.clock = clock;
    }

    @Override
    public void init(ProcessorContext<String, Outbound> context) {
        this.context = context;
        store = context.getStateStore(StoreNames.LEDGERS);
        // A task is initialised again after its store was restored (a crash, a failed transaction, a rebalance): what
        // was kept in memory may be ahead of the store, so every ledger is read afresh, and what was held for a commit
        // that did not happen is dropped with it (the inputs that decided it are processed again).
        loaded.clear();
        published.clear();
        pending = new PendingChecks();
        checks = CommitOutputs.atCommit(context, store, this::checkedAtCommit);
    }

    @Override
    public void process(Record<String, LedgerInput> record) {
        Ledger current = loaded.computeIfAbsent(record.key(), key -> {
            ZoneTypeKey ledgerKey = ZoneTypeKey.parse(key);
            return StoredLedgers.read(store, ledgerKey).orElseGet(() -> Ledger.empty(ledgerKey));
        });
        LedgerDecision decision = ledger.apply(current, record.value(), clock.instant());
        decision.writes().forEach((key, value) -> PrefixedRecords.write(store, key, value));
        // A pool's events go with its decision to the provisioner, which records them with its own for the change the
        // decision leads to: one record instead of two. Those of a pool with no decision to carry them go on their own.
        Map<String, List<RecordedEvent>> events = new LinkedHashMap<>(RecordedEvents.byPool(decision.events()));
        for (LedgerDecision.PoolUpdate update : decision.capacity()) {
            List<RecordedEvent> carried = update.checked() == null ? null : events.remove(update.pool());
            recorded(
                    update.pool(),
                    pending.hold(update.pool(), current, update.checked(), carried == null ? List.of() : carried));
            checks.holding(update.pool());
        }
        decision.reclaims()
                .forEach(reclaim -> reclaim.chunked()
                        .forEach(chunk -> emit(
                                reclaim.pool().key().toString(), Outbound.to(Topics.SPOT_RECLAIM_REQUESTED, chunk))));
        events.forEach(this::recorded);
        if (decision.changed()) {
            publishAvailability(record.key(), current);
        }
    }

    /** The ledger's total, free and queued machines for the demand planner, when they changed. */
    private void publishAvailability(String key, Ledger current) {
        FleetAvailability now = new FleetAvailability(
                current.zone(),
                current.instanceType(),
                (int) current.total(),
                (int) current.count(Machine.Status.FREE),
                current.reservedDemandWaiting() + current.spotDemandWaiting());
        if (!now.equals(published.put(key, now))) {
            emit(key, Outbound.to(Topics.FLEET_AVAILABILITY, now));
        }
    }

    @Override
    public void close() {
        loaded.clear();
        published.clear();
    }

    /** The pools' decisions of this commit, each listing what its ledger holds for it now. */
    private List<Record<String, Outbound>> checkedAtCommit() {
        long at = clock.millis();
        return pending.take().stream()
                .map(e -> new Record<>(
                        e.getKey(),
                        e.getValue() == null
                                ? Outbound.tombstone(Topics.CAPACITY_CHECKED)
                                : Outbound.to(Topics.CAPACITY_CHECKED, e.getValue()),
                        at))
                .toList();
    }

    private void recorded(String pool, List<RecordedEvent> events) {
        RecordedEvents.chunked(events).forEach(chunk -> emit(pool, Outbound.to(Topics.NODEPOOL_EVENT_RECORDED, chunk)));
    }

    private void emit(String key, Outbound outbound) {
        context.forward(new Record<>(key, outbound, clock.millis()));
    }
}
