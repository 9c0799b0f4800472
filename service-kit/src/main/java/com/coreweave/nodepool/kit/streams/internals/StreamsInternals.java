package com.coreweave.nodepool.kit.streams.internals;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.apache.kafka.streams.state.internals.CachingKeyValueStore;

/**
 * The Kafka internals the kit relies on, each behind one small method; the only package that may import them.
 *
 * <ul>
 *   <li>{@code StreamsInternalsContractTest} checks each against the Kafka Streams of the build: run it first after an
 *       upgrade.
 *   <li>The classes that must extend or implement an internal type ({@link CommitHookStore}, {@link DecodedStoreType})
 *       and the layer walk ({@link StoreLayers}) live beside this.
 * </ul>
 */
public final class StreamsInternals {

    private StreamsInternals() {}

    /** Whether {@code store} has Streams' record cache among its layers (built {@code withCachingEnabled()}). */
    public static boolean isCaching(StateStore store) {
        // No public API says whether a store is cached: the caching layer is the internal CachingKeyValueStore.
        return StoreLayers.find(store, CachingKeyValueStore.class) != null;
    }

    /**
     * Calls {@code flushed} with each key (UTF-8) {@code store}'s record cache writes through, replacing any listener
     * set before; false, and nothing set, when the store has no cache.
     */
    public static boolean onCacheFlush(StateStore store, Consumer<String> flushed) {
        // The DSL's KTables coalesce their output with this listener; processors have no public hook to it.
        CachingKeyValueStore cache = StoreLayers.find(store, CachingKeyValueStore.class);
        if (cache == null) {
            return false;
        }
        cache.setFlushListener(entry -> flushed.accept(new String(entry.key(), StandardCharsets.UTF_8)), false);
        return true;
    }

    /** Whether {@code context} is Kafka Streams' own (a task's or the test driver's), not a unit test's mock. */
    public static boolean isStreamsContext(ProcessorContext<?, ?> context) {
        // Forwarding as from a node outside process() needs Streams' own context: the public one has no current node.
        return context instanceof InternalProcessorContext<?, ?>;
    }

    /** Flushes {@code store}'s layers as Streams does before a commit: for a test that drives a store by hand. */
    public static void flushCache(StateStore store) {
        // Streams flushes for a commit through the internal CachedStateStore; StateStore.flush() skips the cache hook.
        ((CachedStateStore<?, ?>) store).flushCache();
    }

    /** A new, writable set of record headers holding {@code headers}. */
    public static Headers headers(Header... headers) {
        // The clients' API declares Headers but has no public implementation to build a set of them.
        return new RecordHeaders(headers);
    }
}
