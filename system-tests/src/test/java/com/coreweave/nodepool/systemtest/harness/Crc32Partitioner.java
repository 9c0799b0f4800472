package com.coreweave.nodepool.systemtest.harness;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/** The partition librdkafka's default partitioner (kcat, Python, Go, .NET, Node clients) gives a key: CRC32. */
public final class Crc32Partitioner {

    private Crc32Partitioner() {}

    public static int partition(String key, int partitions) {
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % partitions);
    }
}
