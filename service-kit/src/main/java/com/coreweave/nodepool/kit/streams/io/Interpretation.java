package com.coreweave.nodepool.kit.streams.io;

/**
 * What a service makes of a record its topic has already read and checked ({@code Topic.read}): a value of its own
 * domain, or a {@code Rejection} for what this service cannot use. {@code raw} is the record as received,
 * {@code origin} the topic it was written to (the shared topic or an org's own).
 */
@FunctionalInterface
public interface Interpretation<V, T> {

    T interpret(String key, V value, byte[] raw, RecordOrigin origin);

    static <V> Interpretation<V, V> asIs() {
        return (key, value, raw, origin) -> value;
    }
}
