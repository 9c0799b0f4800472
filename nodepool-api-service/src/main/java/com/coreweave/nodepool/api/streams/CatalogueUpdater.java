package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topics;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.jboss.logging.Logger;

/**
 * Keeps the global store of the instance-type catalogue: each record read through the registry, a tombstone
 * removing its type. A record the registry refuses is skipped with a warning, keeping what the store held: a global
 * store cannot dead-letter, so the catalogue's owner, the capacity-service, dead-letters it (docs/flow.md). Kafka
 * Streams runs this on restore too, so a refused record never reaches the store.
 */
final class CatalogueUpdater implements Processor<String, byte[], Void, Void> {

  private static final Logger LOG = Logger.getLogger(CatalogueUpdater.class);

  private ProcessorContext<Void, Void> context;
  private TimestampedKeyValueStore<String, InstanceType> types;

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    types = context.getStateStore(StoreNames.INSTANCE_TYPES);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    InstanceType type;
    try {
      type = Topics.INSTANCE_TYPE_CATALOGUED.read(record.key(), record.value());
    } catch (Rejection rejection) {
      var meta = context.recordMetadata().orElseThrow();
      LOG.warnf("skipped %s-%d@%d (key %s): %s", meta.topic(), meta.partition(), meta.offset(), record.key(),
          rejection.getMessage());
      return;
    }
    if (type == null) {
      types.delete(record.key());
    } else {
      types.put(record.key(), ValueAndTimestamp.make(type, record.timestamp()));
    }
  }
}
