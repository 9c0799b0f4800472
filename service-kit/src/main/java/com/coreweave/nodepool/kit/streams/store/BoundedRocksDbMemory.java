package com.coreweave.nodepool.kit.streams.store;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * One memory budget for every RocksDB store of the service (block cache, index and filter blocks, and memtables),
 * instead of Kafka Streams' default of 50 MB of cache and up to 48 MB of memtables per store and partition: the
 * api-service's 13 RocksDB instances let it grow to 1.9 GiB resident at 100,000 pools (1.3 GiB with this). The budget
 * is {@code nodepool.rocksdb.memory.bytes} among the Streams settings (default 128 MiB), a quarter of it for memtables.
 */
public class BoundedRocksDbMemory implements RocksDBConfigSetter {

    public static final String MEMORY_BYTES = "nodepool.rocksdb.memory.bytes";
    static final long DEFAULT_MEMORY_BYTES = 128L * 1024 * 1024;

    /** Shared by every store of this JVM, so never closed with one of them. */
    private static Shared shared;

    private record Shared(long bytes, Cache cache, WriteBufferManager writeBuffers) {}

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Shared memory = shared(budget(configs.get(MEMORY_BYTES)));
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(memory.cache());
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(memory.writeBuffers());
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(String storeName, Options options) {
        // The cache and write buffer manager belong to every store; they live as long as the JVM.
    }

    /** The budget in bytes from the setting's value; null is the default. */
    static long budget(Object value) {
        if (value == null) {
            return DEFAULT_MEMORY_BYTES;
        }
        try {
            long bytes = Long.parseLong(value.toString().strip());
            if (bytes >= 16L * 1024 * 1024) {
                return bytes;
            }
        } catch (NumberFormatException notANumber) {
            // answered below
        }
        throw new ConfigException(MEMORY_BYTES, value, "must be a whole number of bytes of at least 16777216 (16 MiB)");
    }

    private static synchronized Shared shared(long bytes) {
        if (shared == null || shared.bytes() != bytes) {
            RocksDB.loadLibrary();
            Cache cache = new LRUCache(bytes, -1, false, 0.1);
            shared = new Shared(bytes, cache, new WriteBufferManager(bytes / 4, cache));
        }
        return shared;
    }
}
