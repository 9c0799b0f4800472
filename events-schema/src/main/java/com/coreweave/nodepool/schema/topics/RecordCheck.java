package com.coreweave.nodepool.schema.topics;

/** What a decoded value must satisfy, given its parsed key; throws a {@link Rejection} saying what is wrong. */
@FunctionalInterface
public interface RecordCheck<K, V> {

    void check(K key, V value);

    static <K, V> RecordCheck<K, V> none() {
        return (key, value) -> {};
    }
}
