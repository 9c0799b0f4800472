package com.coreweave.nodepool.kit.streams.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Values stored in one store as a head record under their key and member records under {@code <key>/<member id>}.
 *
 * <ul>
 *   <li>The value's owner knows what an input changed and writes only those records ({@link #write}): no stored record
 *       grows with the value, and a change to one member costs one record.
 *   <li>A value is read back with a get of its key and a prefix scan of {@code <key>/} ({@link #read}), so no key may
 *       be another key followed by {@code /} (the project's keys hold no {@code /} beyond their own parts).
 *   <li>Head and members share one store and the key's partition, so an interactive query of the key finds them all
 *       there; {@link SplitValues} is the choice when the store's owner should work out what changed instead.
 * </ul>
 */
public final class PrefixedRecords {

    private static final String SEPARATOR = "/";

    private PrefixedRecords() {}

    /** A value's records as stored: its head and its members in key order. */
    public record Stored<R>(R head, List<R> members) {}

    /** The prefix of every member record of {@code key}. */
    public static String members(String key) {
        return key + SEPARATOR;
    }

    /** Where member {@code id} of {@code key} is stored. */
    public static String member(String key, String id) {
        return members(key) + id;
    }

    /** The records of {@code key}, or empty when it has no head (head and members are written together). */
    public static <R> Optional<Stored<R>> read(ReadOnlyKeyValueStore<String, R> store, String key) {
        R head = store.get(key);
        return head == null ? Optional.empty() : Optional.of(new Stored<>(head, scan(store, members(key))));
    }

    /** Every record whose key starts with {@code prefix} (every record of the store when null), in key order. */
    public static <R> List<R> scan(ReadOnlyKeyValueStore<String, R> store, String prefix) {
        return IteratorRace.retried(() -> scanOnce(store, prefix));
    }

    private static <R> List<R> scanOnce(ReadOnlyKeyValueStore<String, R> store, String prefix) {
        List<R> records = new ArrayList<>();
        try (KeyValueIterator<String, R> it =
                prefix == null ? store.all() : store.prefixScan(prefix, new StringSerializer())) {
            it.forEachRemaining(kv -> records.add(kv.value));
        }
        return records;
    }

    /** Writes one changed record; null deletes it. */
    public static <R> void write(KeyValueStore<String, R> store, String key, R record) {
        // A put of null deletes without reading the old value back (delete returns it, parsed).
        store.put(key, record);
    }
}
