package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.kit.streams.store.PrefixedRecords;
import com.coreweave.nodepool.quota.domain.QuotaHead;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.quota.domain.QuotaRecord;
import com.coreweave.nodepool.quota.domain.QuotaRecords;
import com.coreweave.nodepool.schema.events.QuotaKey;
import java.util.List;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads quota ledgers from the {@code quota-ledgers} store, where each is a head and one record per pool
 * ({@link QuotaRecords}): for the ledger's processor and for interactive queries alike.
 */
public final class StoredQuotas {

    private StoredQuotas() {}

    /** The ledger of {@code key}; empty when nothing is stored for it. */
    public static QuotaLedger read(ReadOnlyKeyValueStore<String, QuotaRecord> store, QuotaKey key) {
        return PrefixedRecords.read(store, QuotaRecords.head(key))
                .filter(stored -> stored.head() instanceof QuotaHead)
                .map(stored -> QuotaRecords.ledger(key, (QuotaHead) stored.head(), stored.members()))
                .orElseGet(() -> QuotaLedger.empty(key));
    }

    /** Every ledger whose key starts with {@code prefix} (all of them when null), whole. */
    public static List<QuotaLedger> ledgers(ReadOnlyKeyValueStore<String, QuotaRecord> store, String prefix) {
        return QuotaRecords.ledgers(PrefixedRecords.scan(store, prefix));
    }
}
