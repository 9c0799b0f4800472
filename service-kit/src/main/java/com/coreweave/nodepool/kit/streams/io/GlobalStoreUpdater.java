package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topic;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.jboss.logging.Logger;

/**
 * Keeps a global store of a compacted topic (the instance-type catalogue, the orgs' pool counts): each record read
 * through the registry, a tombstone removing its key. A record the registry refuses is skipped with a warning, keeping
 * what the store held: a global store cannot dead-letter, so the topic's owner dead-letters it (docs/flow.md). Kafka
 * Streams runs this on restore too, so a refused record never reaches the store.
 */
public final class GlobalStoreUpdater<V> implements Processor<String, byte[], Void, Void> {

    private static final Logger LOG = Logger.getLogger(GlobalStoreUpdater.class);

    private final Topic<?, V> topic;
    private final String storeName;
    private ProcessorContext<Void, Void> context;
    private TimestampedKeyValueStore<String, V> store;

    public GlobalStoreUpdater(Topic<?, V> topic, String storeName) {
        this.topic = topic;
        this.storeName = storeName;
    }

    /**
     * Adds the global store {@code storeName} of {@code topic}, kept by an updater of this kind: uncached, without a
     * changelog (a global store is restored from its topic), and timestamped, the format the GlobalKTable of earlier
     * versions left on disk, so an upgraded instance can open it.
     */
    public static <V> void addTo(StreamsBuilder builder, Topic<?, V> topic, String storeName, Class<V> type) {
        builder.addGlobalStore(
                Stores.timestampedKeyValueStoreBuilder(
                                Stores.persistentTimestampedKeyValueStore(storeName),
                                Serdes.String(),
                                JsonSerde.of(type))
                        .withLoggingDisabled(),
                topic.name(),
                Consumed.with(Serdes.String(), Serdes.ByteArray()),
                () -> new GlobalStoreUpdater<>(topic, storeName));
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        V value;
        try {
            value = topic.read(record.key(), record.value());
        } catch (Rejection rejection) {
            var meta = context.recordMetadata().orElseThrow();
            LOG.warnf(
                    "skipped %s-%d@%d (key %s): %s",
                    meta.topic(), meta.partition(), meta.offset(), record.key(), rejection.getMessage());
            return;
        }
        if (value == null) {
            store.delete(record.key());
        } else {
            store.put(record.key(), ValueAndTimestamp.make(value, record.timestamp()));
        }
    }
}
