package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A topic of the system and the one way its records are read: the form of its keys, how its values are decoded, the
 * checks a value must pass against its key, whether it is compacted, how long records stay, who writes it, and whether
 * its records may arrive on any partition ({@code anyPartition}: parties outside the services write it, with clients
 * whose partitioners differ from Java's, so readers move each record to its key's partition first). {@link Topics}
 * lists them all.
 */
public record Topic<K, V>(
        String name,
        KeyFormat<K> keyFormat,
        ValueFormat<V> valueFormat,
        RecordCheck<K, V> check,
        boolean compacted,
        Duration retention,
        String owner,
        boolean anyPartition,
        String description) {

    /** The key, checked against the topic's key form. */
    public K key(String key) {
        return keyFormat.parse(key);
    }

    /**
     * The value of one record, checked: null for a tombstone of a compacted topic; a {@link Rejection} saying why for
     * anything the topic does not carry.
     */
    public V read(String key, byte[] value) {
        K parsedKey = keyFormat.parse(key);
        if (value == null) {
            if (compacted) {
                return null;
            }
            throw new Rejection(Code.VALUE_MISSING, "record has no value");
        }
        V decoded = valueFormat.decode(value);
        check.check(parsedKey, decoded);
        return decoded;
    }

    /**
     * The broker-side configuration of the topic ({@code cleanup.policy}, and {@code retention.ms} when it has a
     * retention), the same wherever it is created: by a service at start-up, for an org, or as a Strimzi KafkaTopic. A
     * topic outside parties write ({@code anyPartition}) is stamped by the broker ({@link #FAIR_TIMESTAMPS}), and,
     * unless compacted, bounded in bytes per partition ({@link #SHARED_INBOUND_RETENTION_BYTES}).
     */
    public Map<String, String> brokerConfig() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("cleanup.policy", compacted ? "compact" : "delete");
        if (retention != null) {
            config.put("retention.ms", Long.toString(retention.toMillis()));
        }
        if (anyPartition) {
            config.putAll(FAIR_TIMESTAMPS);
            if (!compacted) {
                config.put(RETENTION_BYTES, Long.toString(SHARED_INBOUND_RETENTION_BYTES));
            }
        }
        return config;
    }

    /**
     * The record timestamps of a topic outside parties write: the broker's clock, not the producer's. Kafka Streams
     * reads the lowest timestamp first among a task's partitions, and retention counts from it, so a writer's own
     * timestamps would decide when everyone else's records of the task are processed and how long its own are kept.
     */
    public static final Map<String, String> FAIR_TIMESTAMPS = Map.of("message.timestamp.type", "LogAppendTime");

    public static final String RETENTION_BYTES = "retention.bytes";
    /**
     * Bytes kept per partition of a shared inbound topic: written only by the services (REST) and trusted principals,
     * so a bound against a runaway writer rather than a tenant's share.
     */
    public static final long SHARED_INBOUND_RETENTION_BYTES = 1024L * 1024 * 1024;

    /** The topic's dead-letter companion: same key, raw value, reason in headers. */
    public String deadLetterName() {
        return name + "-dlq";
    }
}
