package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.FleetOutcome;
import com.coreweave.nodepool.capacity.domain.Ledger;
import com.coreweave.nodepool.capacity.domain.LedgerHead;
import com.coreweave.nodepool.capacity.domain.LedgerKeys;
import com.coreweave.nodepool.capacity.domain.LedgerRecord;
import com.coreweave.nodepool.capacity.domain.RememberedChange;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads ledgers from the {@code ledgers} store, where each is a head and one record per pool, machine out of service
 * and remembered fleet change ({@link LedgerKeys}): for the ledger's processor and for interactive queries alike.
 */
public final class StoredLedgers {

  private StoredLedgers() {
  }

  /** The ledger of {@code key}, or empty when nothing is stored for it. */
  public static Optional<Ledger> read(ReadOnlyKeyValueStore<String, LedgerRecord> store, ZoneTypeKey key) {
    if (!(store.get(LedgerKeys.head(key)) instanceof LedgerHead head)) {
      return Optional.empty();
    }
    return Optional.of(Ledger.load(key, head, scan(store, LedgerKeys.entries(key))));
  }

  /** The outcome of an operator change the ledger of {@code key} has applied and still remembers. */
  public static Optional<FleetOutcome> fleetChange(ReadOnlyKeyValueStore<String, LedgerRecord> store,
                                                   ZoneTypeKey key, String requestId) {
    if (store.get(LedgerKeys.head(key)) instanceof LedgerHead head && head.legacy() != null) {
      return head.legacy().changes().stream().filter(o -> o.requestId().equals(requestId)).findFirst();
    }
    return scan(store, LedgerKeys.changes(key)).stream()
        .filter(r -> r instanceof RememberedChange c && c.outcome().requestId().equals(requestId))
        .map(r -> ((RememberedChange) r).outcome()).findFirst();
  }

  private static List<LedgerRecord> scan(ReadOnlyKeyValueStore<String, LedgerRecord> store, String prefix) {
    List<LedgerRecord> records = new ArrayList<>();
    try (KeyValueIterator<String, LedgerRecord> it = store.prefixScan(prefix, new StringSerializer())) {
      it.forEachRemaining(kv -> records.add(kv.value));
    }
    return records;
  }
}
