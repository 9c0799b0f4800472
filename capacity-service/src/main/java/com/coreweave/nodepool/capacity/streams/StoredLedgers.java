package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.FleetOutcome;
import com.coreweave.nodepool.capacity.domain.Ledger;
import com.coreweave.nodepool.capacity.domain.LedgerHead;
import com.coreweave.nodepool.capacity.domain.LedgerKeys;
import com.coreweave.nodepool.capacity.domain.LedgerRecord;
import com.coreweave.nodepool.capacity.domain.RememberedChange;
import com.coreweave.nodepool.kit.streams.store.PrefixedRecords;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.Optional;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads ledgers from the {@code ledgers} store, where each is a head and one record per pool, machine out of service
 * and remembered fleet change ({@link LedgerKeys}): for the ledger's processor and for interactive queries alike.
 */
public final class StoredLedgers {

    private StoredLedgers() {}

    /** The ledger of {@code key}, or empty when nothing is stored for it. */
    public static Optional<Ledger> read(ReadOnlyKeyValueStore<String, LedgerRecord> store, ZoneTypeKey key) {
        return PrefixedRecords.read(store, LedgerKeys.head(key))
                .filter(stored -> stored.head() instanceof LedgerHead)
                .map(stored -> Ledger.load(key, (LedgerHead) stored.head(), stored.members()));
    }

    /** The outcome of an operator change the ledger of {@code key} has applied and still remembers. */
    public static Optional<FleetOutcome> fleetChange(
            ReadOnlyKeyValueStore<String, LedgerRecord> store, ZoneTypeKey key, String requestId) {
        return PrefixedRecords.scan(store, LedgerKeys.changes(key)).stream()
                .filter(r -> r instanceof RememberedChange c
                        && c.outcome().requestId().equals(requestId))
                .map(r -> ((RememberedChange) r).outcome())
                .findFirst();
    }
}
