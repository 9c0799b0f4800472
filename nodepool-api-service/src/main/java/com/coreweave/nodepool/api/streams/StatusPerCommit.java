package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Publishes each pool's status once per commit instead of once per input: a create changes the status with the
 * request and again with each fact, often within one commit interval, and only the last is worth a record. A cached
 * table keeps the latest status per pool and forwards it when the task commits, in the same transaction. Its store
 * keeps no changelog: the table only buffers, and after a crash the aborted transaction's inputs are processed again.
 * A deleted pool is kept as an empty value, so its tombstone is published even when the store had nothing for it
 * (a table forwards nothing for a deletion of what it never held). The one status not coalesced is a deleted pool's
 * last, {@code NodesRemoved=Complete}, made by the same input as its tombstone: it goes out at once, so that readers
 * see how the pool ended before it is gone (docs/flow.md).
 */
final class StatusPerCommit {

  private static final byte[] DELETED = new byte[0];

  private StatusPerCommit() {
  }

  /** Writes every output of the pool processor to its topic: statuses once per commit, the rest at once. */
  static void route(KStream<String, Outbound> outputs) {
    Outbound.route(outputs.filterNot((key, out) -> coalesced(out), Named.as("at-once")), "write-outputs");
    publish(outputs.filter((key, out) -> coalesced(out), Named.as("per-commit")));
  }

  private static void publish(KStream<String, Outbound> statuses) {
    statuses
        .mapValues(status -> status.value() == null ? DELETED : Json.bytes(status.value()), Named.as("status-bytes"))
        .toTable(Named.as("status-latest"), Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as(
                StoreNames.STATUS_OUTBOX)
            .withKeySerde(Serdes.String())
            .withValueSerde(Serdes.ByteArray())
            .withCachingEnabled()
            .withLoggingDisabled())
        .toStream(Named.as("status-flushed"))
        .mapValues(bytes -> bytes.length == 0 ? null : bytes, Named.as("status-or-tombstone"))
        .to(Topics.NODEPOOL_STATUS.name(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("write-status"));
  }

  /** Whether {@code outbound} is a status to publish once per commit (every status but a deleted pool's last). */
  private static boolean coalesced(Outbound outbound) {
    return outbound.topic().equals(Topics.NODEPOOL_STATUS.name()) && !removalComplete(outbound.value());
  }

  private static boolean removalComplete(Object value) {
    return value instanceof NodePool pool && pool.status() != null && pool.status().conditions() != null
        && pool.status().conditions().stream().anyMatch(c -> Conditions.NODES_REMOVED.equals(c.type())
            && Conditions.NodesRemoved.COMPLETE.equals(c.reason()));
  }
}
