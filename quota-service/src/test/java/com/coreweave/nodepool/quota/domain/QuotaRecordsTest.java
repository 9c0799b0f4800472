package com.coreweave.nodepool.quota.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.quota.Pools;
import com.coreweave.nodepool.schema.events.QuotaKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The quota ledger as the {@code quota-ledgers} store holds it: a head and a record per pool, of which an input writes
 * only what it changed.
 */
class QuotaRecordsTest {

    static final QuotaKey KEY = new QuotaKey("demo", Pools.ZONE, Pools.TYPE);
    static final JsonSerde<QuotaRecord> SERDE = JsonSerde.of(QuotaRecord.class);
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    /** The store: every record written so far. */
    final Map<String, QuotaRecord> stored = new TreeMap<>();

    QuotaLedger ledger = QuotaLedger.empty(KEY);

    Map<String, QuotaRecord> apply(QuotaInput input) {
        QuotaLedger next = QuotaDecider.decide(ledger, input, NOW).ledger();
        Map<String, QuotaRecord> writes = QuotaRecords.writes(ledger, next);
        writes.forEach((key, value) -> {
            if (value == null) {
                stored.remove(key);
            } else {
                stored.put(
                        key,
                        SERDE.deserializer().deserialize("t", SERDE.serializer().serialize("t", value)));
            }
        });
        ledger = next;
        return writes;
    }

    QuotaLedger readBack() {
        QuotaHead head = (QuotaHead) stored.get(QuotaRecords.head(KEY));
        List<QuotaRecord> pools = new ArrayList<>();
        stored.forEach((key, value) -> {
            if (key.startsWith(QuotaRecords.pools(KEY))) {
                pools.add(value);
            }
        });
        return QuotaRecords.ledger(KEY, head, pools);
    }

    @Test
    void writesOnlyThePoolAnInputChangedAndTheHeadOnlyWhenTheQuotaChanges() {
        apply(new QuotaInput.LimitSet(100, NOW));
        for (String name : List.of("a", "b", "c", "d")) {
            apply(new QuotaInput.PoolChanged(Pools.demand(name, "uid-" + name, 1, 3)));
        }

        Map<String, QuotaRecord> writes = apply(new QuotaInput.PoolChanged(Pools.demand("b", "uid-b", 2, 5)));

        assertThat(writes).containsOnlyKeys(QuotaRecords.pools(KEY) + "demo/b");
        assertThat(apply(new QuotaInput.PoolChanged(Pools.demand("b", "uid-b", 2, 5))))
                .isEmpty();
        assertThat(apply(new QuotaInput.LimitSet(90, NOW))).containsOnlyKeys(QuotaRecords.head(KEY));
        assertThat(readBack()).isEqualTo(ledger);
    }

    @Test
    void deletesEveryRecordOfALedgerLeftWithoutQuotaOrPool() {
        apply(new QuotaInput.PoolChanged(Pools.demand("a", "uid-a", 1, 3)));
        assertThat(stored).hasSize(2);

        apply(new QuotaInput.PoolGone("demo/a", "uid-a"));

        assertThat(stored).isEmpty();
        assertThat(readBack().isEmpty()).isTrue();
    }

    @Test
    void assemblesTheLedgersOfAScan() {
        apply(new QuotaInput.LimitSet(5, NOW));
        apply(new QuotaInput.PoolChanged(Pools.demand("a", "uid-a", 1, 3)));
        QuotaKey other = new QuotaKey("demo", "US-WEST-04A", Pools.TYPE);
        QuotaLedger elsewhere = QuotaDecider.decide(QuotaLedger.empty(other), new QuotaInput.LimitSet(2, NOW), NOW)
                .ledger();
        QuotaRecords.writes(QuotaLedger.empty(other), elsewhere).forEach(stored::put);

        assertThat(QuotaRecords.ledgers(stored.values())).containsExactly(ledger, elsewhere);
    }
}
