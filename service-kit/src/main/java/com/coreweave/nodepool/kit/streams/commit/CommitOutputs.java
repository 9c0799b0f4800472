package com.coreweave.nodepool.kit.streams.commit;

import com.coreweave.nodepool.kit.streams.internals.CommitHookStore;
import com.coreweave.nodepool.kit.streams.internals.NodeForwarder;
import com.coreweave.nodepool.kit.streams.internals.StoreLayers;
import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.kit.tracing.KeyedTraces;
import com.coreweave.nodepool.kit.tracing.TraceHeaders;
import io.opentelemetry.api.trace.SpanContext;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Outputs a processor writes once per commit, made when the commit comes: each time Streams flushes the store for the
 * task's commit, the processor's {@code outputs} are asked for and forwarded as from the processor, before the commit's
 * records are flushed to the broker, so they go in the same transaction as the store's writes; a task closed without
 * committing drops what its processor held. For outputs that sum up many inputs and whose keys are not the store's
 * ({@link FlushedOutputs} releases an output with the store entry of the same key), such as the last decision of each
 * pool a commit changed, built from what the processor holds in memory at the commit.
 *
 * <p>The processor makes a new one whenever Streams initialises it: the hook replaces any set before on the store, as
 * with {@code RecentValues}, which cannot share a store with it.
 */
public final class CommitOutputs<V> {

    /** The step that last held something for each key's output: the output carries its trace. */
    private final KeyedTraces causes = new KeyedTraces();

    private CommitOutputs() {}

    /** {@code builder}'s store with the layer through which the processor learns of each commit. */
    public static <T> StoreBuilder<KeyValueStore<String, T>> layered(StoreBuilder<KeyValueStore<String, T>> builder) {
        return CommitHookStore.around(builder);
    }

    /**
     * Forwards what {@code outputs} returns, as from {@code context}'s processor, each time {@code store} (built with
     * {@link #layered}) is flushed for a commit. Called from the processor's {@code init}.
     */
    public static <V> CommitOutputs<V> atCommit(
            ProcessorContext<String, V> context,
            KeyValueStore<String, ?> store,
            Supplier<List<Record<String, V>>> outputs) {
        CommitHookStore<?> hook = StoreLayers.find(store, CommitHookStore.class);
        if (hook == null || !StreamsInternals.isStreamsContext(context)) {
            throw new IllegalArgumentException("store " + store.name() + " is not built with CommitOutputs.layered, or "
                    + "the context is not Streams' own");
        }
        CommitOutputs<V> commitOutputs = new CommitOutputs<>();
        // Forwarded outside of any process(), as Streams' own punctuators do: with a record context of no input record.
        NodeForwarder<V> forwarder = NodeForwarder.of(context);
        hook.beforeFlush(() -> forwarder.forwardWithoutInput(commitOutputs.traced(outputs.get())));
        return commitOutputs;
    }

    /**
     * The processor holds something for {@code key}'s output at the commit: it is awaited, so a caught-up thread
     * commits it promptly.
     */
    public void holding(String key) {
        causes.remember(key);
        PromptCommits.pacing().held();
    }

    /** {@code records}, each with the trace of its cause; the causes of keys that output nothing are dropped. */
    private List<Record<String, V>> traced(List<Record<String, V>> records) {
        List<Record<String, V>> traced = records.stream()
                .map(record -> {
                    SpanContext cause = causes.take(record.key());
                    return cause == null ? record : record.withHeaders(TraceHeaders.with(record.headers(), cause));
                })
                .toList();
        causes.clear();
        return traced;
    }
}
