package com.coreweave.nodepool.kit.streams.io;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The partition Java's Kafka producer gives a string key (murmur2, as its default partitioner and Kafka Streams do).
 * Every keyed store of a service lives on the task of that partition, so a record on any other partition (kcat and
 * librdkafka hash with CRC32; some clients pick a partition) must be moved there before it touches keyed state.
 */
public final class KeyPartition {

    private KeyPartition() {}

    public static int of(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }
}
