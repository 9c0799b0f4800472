package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.Json;
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
 * (a table forwards nothing for a deletion of what it never held).
 */
final class StatusPerCommit {

  private static final byte[] DELETED = new byte[0];

  private StatusPerCommit() {
  }

  static void publish(KStream<String, Outbound> statuses) {
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

  static boolean isStatus(Outbound outbound) {
    return outbound.topic().equals(Topics.NODEPOOL_STATUS.name());
  }
}
