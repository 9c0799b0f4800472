package com.coreweave.nodepool.kit.streams.commit;

import com.coreweave.nodepool.kit.streams.internals.NodeForwarder;
import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.kit.tracing.TraceHeaders;
import com.coreweave.nodepool.kit.tracing.TracedProcessors;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * One output per key and commit: a record held here is forwarded when a cached store (keyed by the same String) writes
 * that key's entry through, which is at the task's next commit (or earlier, if the cache evicts the entry). A key that
 * changes several times between two commits then leaves only its latest record, where it would have left one per
 * change. Held records belong to the open transaction like the store's writes: both reach the broker in it, or neither
 * does, and a task closed without committing drops them with its processor.
 *
 * <p>Kafka Streams' DSL coalesces a KTable's output this way with its record cache; this does the same for a
 * processor's own output, through the same cache-flush hook (an internal Streams interface). The store must be built
 * {@code withCachingEnabled()} and the context be Streams' own (a task's or TopologyTestDriver's): without either
 * nothing would ever release what is held, so {@link #of} refuses them.
 */
public final class FlushedOutputs<V> {

    private final ProcessorContext<String, V> context;
    private final Map<String, Record<String, V>> held = new HashMap<>();

    private FlushedOutputs(ProcessorContext<String, V> context, StateStore store) {
        this.context = context;
        if (!StreamsInternals.isCaching(store)) {
            throw new IllegalStateException(
                    "store " + store.name() + " has no record cache: FlushedOutputs releases an "
                            + "output when the cache flushes its key, so build the store withCachingEnabled()");
        }
        NodeForwarder<V> forwarder = NodeForwarder.of(context);
        StreamsInternals.onCacheFlush(store, key -> release(forwarder, key));
    }

    /**
     * Outputs of {@code context}'s processor, forwarded when {@code store} (of String keys) flushes their key. Called
     * from the processor's {@code init}.
     *
     * @throws IllegalStateException when {@code store} has no record cache, or {@code context} is not Streams' own
     */
    public static <V> FlushedOutputs<V> of(ProcessorContext<String, V> context, StateStore store) {
        return new FlushedOutputs<>(context, store);
    }

    /**
     * Holds {@code record} until its key's entry is flushed, in place of any record held for that key before. A held
     * record is awaited like one written at once, so a caught-up thread commits it promptly.
     */
    public void hold(Record<String, V> record) {
        // Forwarded at the commit, outside the step that made it: it carries that step's trace from here.
        held.put(record.key(), record.withHeaders(TraceHeaders.withCurrent(record.headers())));
        PromptCommits.pacing().held();
    }

    /** Forwards the record held for {@code key} now, if there is one: before an output that must follow it. */
    public void forwardNow(String key) {
        Record<String, V> record = held.remove(key);
        if (record != null) {
            context.forward(record);
        }
    }

    /**
     * Called by the cache as it writes a key's entry through, outside of any processor's {@code process} when that is a
     * commit: the record is forwarded as from this processor's node, as Streams' own KTable flush listener does.
     */
    private void release(NodeForwarder<V> forwarder, String key) {
        Record<String, V> record = held.remove(key);
        if (record != null) {
            TracedProcessors.released(() -> forwarder.forward(record));
        }
    }
}
