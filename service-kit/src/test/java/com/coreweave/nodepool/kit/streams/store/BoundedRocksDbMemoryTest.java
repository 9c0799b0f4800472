package com.coreweave.nodepool.kit.streams.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class BoundedRocksDbMemoryTest {

    @Test
    void everyStoreSharesOneCacheAndOneWriteBufferBudget() {
        RocksDB.loadLibrary();
        try (Options views = new Options();
                Options events = new Options()) {
            views.setTableFormatConfig(new BlockBasedTableConfig());
            events.setTableFormatConfig(new BlockBasedTableConfig());
            BoundedRocksDbMemory setter = new BoundedRocksDbMemory();

            setter.setConfig("pool-views", views, Map.of());
            setter.setConfig("pool-events", events, Map.of(BoundedRocksDbMemory.MEMORY_BYTES, "67108864"));
            setter.setConfig("pool-views", views, Map.of(BoundedRocksDbMemory.MEMORY_BYTES, "67108864"));

            BlockBasedTableConfig viewTable = (BlockBasedTableConfig) views.tableFormatConfig();
            BlockBasedTableConfig eventTable = (BlockBasedTableConfig) events.tableFormatConfig();
            assertThat(viewTable.cacheIndexAndFilterBlocks()).isTrue();
            assertThat(views.writeBufferManager()).isNotNull().isSameAs(events.writeBufferManager());
            assertThat(eventTable.cacheIndexAndFilterBlocks()).isTrue();
        }
    }

    @Test
    void readsTheBudgetAndRefusesOneThatIsNotAWholeNumberOfEnoughBytes() {
        assertThat(BoundedRocksDbMemory.budget(null)).isEqualTo(128L * 1024 * 1024);
        assertThat(BoundedRocksDbMemory.budget(" 268435456 ")).isEqualTo(268435456L);
        assertThatThrownBy(() -> BoundedRocksDbMemory.budget("lots"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("nodepool.rocksdb.memory.bytes")
                .hasMessageContaining("at least 16777216");
        assertThatThrownBy(() -> BoundedRocksDbMemory.budget(1024)).isInstanceOf(ConfigException.class);
    }
}
