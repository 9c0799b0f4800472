package com.coreweave.nodepool.kit.streams.io;

/**
 * What a service makes of a record its topic has already read and checked ({@code Topic.read}): a value of its own
 * domain, or a {@code Rejection} for what this service cannot use. {@code raw} is the record as received.
 */
@FunctionalInterface
public interface Interpretation<V, T> {

    T interpret(String key, V value, byte[] raw);

    static <V> Interpretation<V, V> asIs() {
        return (key, value, raw) -> value;
    }
}
