package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.kit.streams.store.PrefixedRecords;
import com.coreweave.nodepool.schema.events.QuotaKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Quota ledgers as the {@code quota-ledgers} store holds them ({@link PrefixedRecords}): the head under
 * {@code <org>/<zone>/<instanceType>}, each pool under {@code <org>/<zone>/<instanceType>/p/<org>/<pool>}.
 *
 * <ul>
 *   <li>The head's key is the one the ledger's inputs carry.
 *   <li>A prefix scan of the key finds a ledger's records, one of {@code <org>/} all of an org's.
 * </ul>
 */
public final class QuotaRecords {

    private QuotaRecords() {}

    public static String head(QuotaKey key) {
        return key.toString();
    }

    /** The prefix of every pool record of the ledger. */
    public static String pools(QuotaKey key) {
        return PrefixedRecords.member(head(key), "p/");
    }

    static String pool(QuotaKey key, String pool) {
        return pools(key) + pool;
    }

    /** The ledger from its head (null: nothing stored) and pool records. */
    public static QuotaLedger ledger(QuotaKey key, QuotaHead head, Iterable<QuotaRecord> pools) {
        if (head == null) {
            return QuotaLedger.empty(key);
        }
        TreeMap<String, PoolEntry> entries = new TreeMap<>();
        for (QuotaRecord record : pools) {
            if (record instanceof QuotaRecord.Pool pool) {
                entries.put(pool.entry().ref().key().toString(), pool.entry());
            }
        }
        return new QuotaLedger(key, head.limit(), head.limitSetAt(), entries);
    }

    /** Whole ledgers from a scan of any records (heads and pools of several ledgers), in key order. */
    public static List<QuotaLedger> ledgers(Iterable<QuotaRecord> records) {
        Map<QuotaKey, QuotaHead> heads = new TreeMap<>(Comparator.comparing(QuotaKey::toString));
        Map<QuotaKey, List<QuotaRecord>> pools = new LinkedHashMap<>();
        for (QuotaRecord record : records) {
            switch (record) {
                case QuotaHead head -> heads.put(head.key(), head);
                case QuotaRecord.Pool pool -> {
                    pools.computeIfAbsent(pool.entry().ref().quotaKey(), k -> new ArrayList<>())
                            .add(pool);
                }
            }
        }
        return heads.entrySet().stream()
                .map(e -> ledger(e.getKey(), e.getValue(), pools.getOrDefault(e.getKey(), List.of())))
                .toList();
    }

    /**
     * The records to write (a null value deletes) when a ledger went from {@code before} to {@code after}.
     *
     * <ul>
     *   <li>Each pool that changed or left.
     *   <li>The head when the quota changed, or the ledger is new or gone.
     * </ul>
     */
    public static Map<String, QuotaRecord> writes(QuotaLedger before, QuotaLedger after) {
        QuotaKey key = after.key();
        Map<String, QuotaRecord> writes = new TreeMap<>();
        if (before.isEmpty() && after.isEmpty()) {
            return writes;
        }
        Set<String> pools = new HashSet<>(before.pools().keySet());
        pools.addAll(after.pools().keySet());
        for (String pool : pools) {
            PoolEntry now = after.isEmpty() ? null : after.pools().get(pool);
            if (!Objects.equals(before.pools().get(pool), now)) {
                writes.put(pool(key, pool), now == null ? null : new QuotaRecord.Pool(now));
            }
        }
        boolean headChanged = before.isEmpty()
                || !Objects.equals(before.limit(), after.limit())
                || !Objects.equals(before.limitSetAt(), after.limitSetAt());
        if (after.isEmpty()) {
            writes.put(head(key), null);
        } else if (headChanged) {
            writes.put(head(key), new QuotaHead(key, after.limit(), after.limitSetAt()));
        }
        return writes;
    }
}
