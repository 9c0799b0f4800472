package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One ledger fed input after input the way its processor feeds it: the ledger in memory, the records each input wrote
 * (the {@code ledgers} store), and what a reader of its topics would see, each input its own commit: the latest
 * {@code capacity-checked} per pool (a tombstone removes it), listing the grants the ledger holds after the input,
 * every reclaim request and event.
 */
final class LedgerRun {

    static final JsonSerde<LedgerRecord> SERDE = JsonSerde.of(LedgerRecord.class);

    final CapacityLedger ledger;
    Ledger state = Ledger.empty(Inputs.KEY);
    /** The store: every record written so far by key. */
    final TreeMap<String, LedgerRecord> stored = new TreeMap<>();

    LedgerDecision last;
    final Map<String, CapacityChecked> published = new TreeMap<>();
    final List<SpotReclaimRequested> reclaims = new ArrayList<>();
    final List<RecordedEvent> events = new ArrayList<>();
    private Instant clock = Inputs.NOW;

    LedgerRun() {
        this(10_000);
    }

    LedgerRun(int maxMachines) {
        this(new CapacityLedger(maxMachines, 100));
    }

    LedgerRun(CapacityLedger ledger) {
        this.ledger = ledger;
    }

    LedgerDecision apply(LedgerInput input) {
        clock = clock.plusSeconds(1);
        last = ledger.apply(state, input, clock);
        last.writes().forEach((key, record) -> {
            if (record == null) {
                stored.remove(key);
            } else {
                stored.put(key, record);
            }
        });
        for (LedgerDecision.PoolUpdate update : last.capacity()) {
            if (update.checked() == null) {
                published.remove(update.pool());
            } else {
                published.put(update.pool(), state.withGrants(update.checked()));
            }
        }
        reclaims.addAll(last.reclaims());
        events.addAll(last.events());
        return last;
    }

    LedgerRun with(LedgerInput... inputs) {
        for (LedgerInput input : inputs) {
            apply(input);
        }
        return this;
    }

    /** The ledger as a restarted service reads it back: from the records written, through the store's JSON. */
    Ledger reloaded() {
        LedgerRecord head = roundTrip(stored.get(LedgerKeys.head(Inputs.KEY)));
        String prefix = LedgerKeys.entries(Inputs.KEY);
        List<LedgerRecord> entries = stored.tailMap(prefix).entrySet().stream()
                .takeWhile(e -> e.getKey().startsWith(prefix))
                .map(e -> roundTrip(e.getValue()))
                .toList();
        return Ledger.load(Inputs.KEY, (LedgerHead) head, entries);
    }

    static LedgerRecord roundTrip(LedgerRecord record) {
        return record == null
                ? null
                : SERDE.deserializer().deserialize("t", SERDE.serializer().serialize("t", record));
    }

    CapacityChecked checked(PoolRef pool) {
        return published.get(pool.key().toString());
    }

    List<Grant> grants(PoolRef pool) {
        return checked(pool).grants();
    }

    List<String> machinesOf(PoolRef pool) {
        return grants(pool).stream().map(Grant::machine).toList();
    }

    List<RecordedEvent> events(String reason) {
        return events.stream().filter(e -> e.reason().equals(reason)).toList();
    }
}
