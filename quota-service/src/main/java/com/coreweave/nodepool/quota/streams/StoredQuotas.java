package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.quota.domain.QuotaHead;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.quota.domain.QuotaRecord;
import com.coreweave.nodepool.quota.domain.QuotaRecords;
import com.coreweave.nodepool.schema.events.QuotaKey;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads quota ledgers from the {@code quota-ledgers} store, where each is a head and one record per pool
 * ({@link QuotaRecords}): for the ledger's processor and for interactive queries alike.
 */
public final class StoredQuotas {

  private StoredQuotas() {
  }

  /** A ledger as stored, and whether an earlier version stored it whole (one value). */
  public record Read(QuotaLedger ledger, boolean storedWhole) {
  }

  public static Read read(ReadOnlyKeyValueStore<String, QuotaRecord> store, QuotaKey key) {
    QuotaHead head = store.get(QuotaRecords.head(key)) instanceof QuotaHead stored ? stored : null;
    return new Read(QuotaRecords.ledger(key, head, values(store, QuotaRecords.pools(key))),
        head != null && head.legacy() != null);
  }

  /** Every ledger whose key starts with {@code prefix} (all of them when null), whole. */
  public static List<QuotaLedger> ledgers(ReadOnlyKeyValueStore<String, QuotaRecord> store, String prefix) {
    return QuotaRecords.ledgers(values(store, prefix));
  }

  private static List<QuotaRecord> values(ReadOnlyKeyValueStore<String, QuotaRecord> store, String prefix) {
    List<QuotaRecord> values = new ArrayList<>();
    try (KeyValueIterator<String, QuotaRecord> it = prefix == null ? store.all()
        : store.prefixScan(prefix, new StringSerializer())) {
      it.forEachRemaining(kv -> values.add(kv.value));
    }
    return values;
  }
}
