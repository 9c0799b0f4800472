package com.coreweave.nodepool.kit.streams.commit;

import com.coreweave.nodepool.kit.streams.store.StoreLayers;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.state.internals.CachingKeyValueStore;

/**
 * One output per key and commit: a record held here is forwarded when a cached store (keyed by the same String) writes
 * that key's entry through, which is at the task's next commit (or earlier, if the cache evicts the entry). A key
 * that changes several times between two commits then leaves only its latest record, where it would have left one
 * per change. Held records belong to the open transaction like the store's writes: both reach the broker in it, or
 * neither does, and a task closed without committing drops them with its processor.
 *
 * <p>Kafka Streams' DSL coalesces a KTable's output this way with its record cache; this does the same for a
 * processor's own output, through the same cache-flush hook (an internal Streams interface). With a store without a
 * cache, every record is forwarded at once.
 */
public final class FlushedOutputs<V> {

  private final ProcessorContext<String, V> context;
  private final Map<String, Record<String, V>> held = new HashMap<>();
  private final boolean holding;

  private FlushedOutputs(ProcessorContext<String, V> context, StateStore store) {
    this.context = context;
    CachingKeyValueStore cache = StoreLayers.find(store, CachingKeyValueStore.class);
    // Only Streams' own context can have a cached store (a unit test's mock context cannot initialise one).
    holding = cache != null && context instanceof InternalProcessorContext<String, V>;
    if (holding) {
      InternalProcessorContext<String, V> streams = (InternalProcessorContext<String, V>) context;
      ProcessorNode<?, ?, ?, ?> node = streams.currentNode();
      cache.setFlushListener(flushed -> release(streams, node,
          new String(flushed.key(), StandardCharsets.UTF_8)), false);
    }
  }

  /** Outputs of {@code context}'s processor, forwarded when {@code store} (of String keys) flushes their key. */
  public static <V> FlushedOutputs<V> of(ProcessorContext<String, V> context, StateStore store) {
    return new FlushedOutputs<>(context, store);
  }

  /**
   * Holds {@code record} until its key's entry is flushed, in place of any record held for that key before. A held
   * record is awaited like one written at once, so a caught-up thread commits it promptly.
   */
  public void hold(Record<String, V> record) {
    if (holding) {
      held.put(record.key(), record);
      PromptCommits.pacing().held();
    } else {
      context.forward(record);
    }
  }

  /** Forwards the record held for {@code key} now, if there is one: before an output that must follow it. */
  public void forwardNow(String key) {
    Record<String, V> record = held.remove(key);
    if (record != null) {
      context.forward(record);
    }
  }

  /**
   * Called by the cache as it writes a key's entry through, outside of any processor's {@code process} when that is
   * a commit: the record is forwarded as from this processor's node, as Streams' own KTable flush listener does.
   */
  private void release(InternalProcessorContext<String, V> streams, ProcessorNode<?, ?, ?, ?> node, String key) {
    Record<String, V> record = held.remove(key);
    if (record == null) {
      return;
    }
    ProcessorNode<?, ?, ?, ?> previous = streams.currentNode();
    streams.setCurrentNode(node);
    try {
      streams.forward(record);
    } finally {
      streams.setCurrentNode(previous);
    }
  }
}
