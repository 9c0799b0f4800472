package com.coreweave.nodepool.capacity.domain;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * The records of the {@code ledgers} store one input changed, by key; a null value deletes the key. Empty when the
 * input changed nothing, so it costs no write.
 */
public record LedgerWrites(SortedMap<String, LedgerRecord> records) {

    public static final LedgerWrites NONE = new LedgerWrites(new TreeMap<>());

    public LedgerWrites {
        records = Collections.unmodifiableSortedMap(new TreeMap<>(records));
    }

    public boolean isEmpty() {
        return records.isEmpty();
    }

    /**
     * Each record, the outcomes of fleet changes last: an admin call waits for its outcome in the store (interactive
     * queries read it while the stream thread writes), so once it is there, so is the ledger the change led to.
     */
    public void forEach(BiConsumer<String, LedgerRecord> write) {
        records.forEach((key, record) -> {
            if (!(record instanceof RememberedChange)) {
                write.accept(key, record);
            }
        });
        records.forEach((key, record) -> {
            if (record instanceof RememberedChange) {
                write.accept(key, record);
            }
        });
    }
}
