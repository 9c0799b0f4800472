package com.coreweave.nodepool.kit.streams.internals;

import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/** The layers Kafka Streams wraps a store in (metering, caching, logging, a processor's read-write view). */
public final class StoreLayers {

    private StoreLayers() {}

    /** The outermost layer of {@code store} (itself included) that is a {@code type}, or null. */
    public static <L> L find(StateStore store, Class<L> type) {
        // No public API reaches under the outer layer: WrappedStateStore (internal) is how Streams stacks them.
        StateStore layer = store;
        while (!type.isInstance(layer)) {
            if (!(layer instanceof WrappedStateStore<?, ?, ?> wrapped)) {
                return null;
            }
            layer = wrapped.wrapped();
        }
        return type.cast(layer);
    }
}
