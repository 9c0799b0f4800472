package com.coreweave.nodepool.kit.streams.store;

import com.coreweave.nodepool.kit.streams.internals.CommitHookStore;
import com.coreweave.nodepool.kit.streams.internals.StoreLayers;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Values kept parsed in front of their stores for the processor that is their only writer, as {@link RecentValues}
 * keeps them, each stored split so that no stored entry grows with the value: its head (what stays small) under its key
 * in one store, and each of its members (what grows: a pool's nodes) under {@code <key>/<member id>} in a second store.
 * A write is held until Streams flushes the stores for the commit, and then writes the head only if it changed and only
 * the members that changed since the last write, deleting those that left: a 5,000-node pool whose one node changed
 * writes one member entry, not 5,000, and no changelog record comes near Kafka's 1 MiB.
 *
 * <p>A value is read back with a get of its head and a prefix scan of {@code <key>/}, so no key may be another key
 * followed by {@code /} and more (the project's {@code <org>/<pool>} never is: names contain no {@code /}). Both stores
 * are changelogged and cached stores of the processor's task, built with {@link #layered}. A changelog record goes to
 * its task's partition whatever its key, so member keys need no partitioning of their own; but they do not hash to that
 * partition either, so an interactive query finds a key's members by the key itself: {@code queryMetadataForKey} of the
 * head store with the key, then a prefix scan of {@code <key>/} in the member store of that partition.
 *
 * <p>As with RecentValues, the processor makes a new one whenever Streams initialises it (a task opened, or revived
 * after a failed transaction), so a value never outlives the store state it was read from and held writes go with the
 * transaction that failed. Values, heads and members must be immutable, and their {@code equals} must say whether they
 * would serialize the same.
 */
public final class SplitValues<V, H, M> {

    /** How a value is split into a head and its members, and joined from them again. */
    public interface Shape<V, H, M> {

        /** What of {@code value} is stored under its key: everything but its members. */
        H head(V value);

        /** The members of {@code value} by id, each stored under {@code <key>/<id>}. */
        Map<String, M> members(V value);

        /** The value stored as {@code head} and {@code members}, in the order of their ids. */
        V join(H head, SortedMap<String, M> members);
    }

    private static final String SEPARATOR = "/";

    private final KeyValueStore<String, H> heads;
    private final KeyValueStore<String, M> members;
    private final Shape<V, H, M> shape;
    /** In least recently used order. */
    private final LinkedHashMap<String, Kept<V, H, M>> recent = new LinkedHashMap<>(16, 0.75f, true);
    /** Keys whose newest value is held here and not yet written to the stores. */
    private final Set<String> held = new HashSet<>();

    private final ToIntFunction<V> weigher;
    private final long maxWeight;
    private long weight;

    /**
     * Keeps values of {@code heads} and {@code members} up to a total {@code maxWeight} by {@code weigher} (at least 1
     * each), the least recently used leaving first.
     */
    public SplitValues(
            KeyValueStore<String, H> heads,
            KeyValueStore<String, M> members,
            Shape<V, H, M> shape,
            long maxWeight,
            ToIntFunction<V> weigher) {
        this.heads = heads;
        this.members = members;
        this.shape = shape;
        this.maxWeight = maxWeight;
        this.weigher = value -> Math.max(1, weigher.applyAsInt(value));
        // Streams flushes a task's stores one after the other for a commit: whichever comes first writes both, so the
        // members reach the same transaction as their head.
        hook(heads).beforeFlush(this::writeHeld);
        hook(members).beforeFlush(this::writeHeld);
    }

    /** {@code builder}'s store with the layer through which a SplitValues learns of each commit. */
    public static <T> StoreBuilder<KeyValueStore<String, T>> layered(StoreBuilder<KeyValueStore<String, T>> builder) {
        return CommitHookStore.around(builder);
    }

    /** Where member {@code id} of {@code key} is stored in the member store. */
    public static String memberKey(String key, String id) {
        return key + SEPARATOR + id;
    }

    /** The value of {@code key}, or null. */
    public V get(String key) {
        Kept<V, H, M> kept = recent.get(key);
        if (kept != null) {
            return kept.value();
        }
        H head = heads.get(key);
        if (head == null) {
            return null;
        }
        SortedMap<String, M> stored = members(key);
        V value = shape.join(head, stored);
        keep(key, new Kept<>(value, new Stored<>(head, stored), weigher.applyAsInt(value)));
        return value;
    }

    /** Sets {@code key}'s value; the stores receive what changed of it with the commit. */
    public void put(String key, V value) {
        Kept<V, H, M> kept = recent.get(key);
        Stored<H, M> stored = kept != null ? kept.stored() : stored(key);
        held.add(key);
        keep(key, new Kept<>(value, stored, weigher.applyAsInt(value)));
    }

    /** Deletes {@code key}'s head and members from the stores at once. */
    public void delete(String key) {
        Kept<V, H, M> kept = forget(key);
        held.remove(key);
        Stored<H, M> stored = kept != null ? kept.stored() : stored(key);
        erase(heads, key);
        stored.members().keySet().forEach(id -> erase(members, memberKey(key, id)));
    }

    /** The head store, with every held value written: to iterate the keys, or to listen to its cache. */
    public KeyValueStore<String, H> heads() {
        writeHeld();
        return heads;
    }

    private void keep(String key, Kept<V, H, M> kept) {
        forget(key);
        recent.put(key, kept);
        weight += kept.weight();
        Iterator<Map.Entry<String, Kept<V, H, M>>> eldest = recent.entrySet().iterator();
        while (weight > maxWeight && recent.size() > 1) {
            Map.Entry<String, Kept<V, H, M>> leaving = eldest.next();
            if (held.remove(leaving.getKey())) {
                write(leaving.getKey(), leaving.getValue());
            }
            weight -= leaving.getValue().weight();
            eldest.remove();
        }
    }

    private Kept<V, H, M> forget(String key) {
        Kept<V, H, M> known = recent.remove(key);
        if (known != null) {
            weight -= known.weight();
        }
        return known;
    }

    private void writeHeld() {
        for (String key : held) {
            Kept<V, H, M> kept = recent.get(key);
            recent.put(key, new Kept<>(kept.value(), write(key, kept), kept.weight()));
        }
        held.clear();
    }

    /** Writes what changed of the kept value since it was last read or written; returns what the stores now hold. */
    private Stored<H, M> write(String key, Kept<V, H, M> kept) {
        H head = shape.head(kept.value());
        if (!head.equals(kept.stored().head())) {
            heads.put(key, head);
        }
        Map<String, M> next = shape.members(kept.value());
        Map<String, M> before = kept.stored().members();
        next.forEach((id, member) -> {
            if (!member.equals(before.get(id))) {
                members.put(memberKey(key, id), member);
            }
        });
        before.keySet().forEach(id -> {
            if (!next.containsKey(id)) {
                erase(members, memberKey(key, id));
            }
        });
        return new Stored<>(head, next);
    }

    /** What the stores hold for {@code key}; a key without a head has no members (they are written together). */
    private Stored<H, M> stored(String key) {
        H head = heads.get(key);
        return new Stored<>(head, head == null ? Map.of() : members(key));
    }

    /** The members stored for {@code key}, by id. */
    private SortedMap<String, M> members(String key) {
        String prefix = memberKey(key, "");
        SortedMap<String, M> stored = new TreeMap<>();
        try (KeyValueIterator<String, M> it = members.prefixScan(prefix, new StringSerializer())) {
            it.forEachRemaining(member -> stored.put(member.key.substring(prefix.length()), member.value));
        }
        return stored;
    }

    /** A delete that does not read the old value back ({@code delete} returns it, parsed). */
    private static <T> void erase(KeyValueStore<String, T> store, String key) {
        store.put(key, null);
    }

    private static CommitHookStore<?> hook(KeyValueStore<String, ?> store) {
        CommitHookStore<?> hook = StoreLayers.find(store, CommitHookStore.class);
        if (hook == null) {
            throw new IllegalArgumentException("store " + store.name() + " is not built with SplitValues.layered");
        }
        return hook;
    }

    /** What the stores hold for a key, as last read or written: its head and its members by id. */
    private record Stored<H, M>(H head, Map<String, M> members) {}

    /** A value kept parsed, what the stores hold for it, and its weight. */
    private record Kept<V, H, M>(V value, Stored<H, M> stored, int weight) {}
}
