package dev.quotaenforcer.runtime;

import dev.quotaenforcer.config.EnforcerConfig;
import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Caps the off-heap memory of every RocksDB store in the process: one block cache shared by all
 * stores, with their memtables charged to it through one write buffer manager, and index and filter
 * blocks inside the cache too. Without it each store (one per task) takes its own cache and
 * memtables, so memory grows with the partition count rather than with the keys.
 */
public final class BoundedRocksDbMemory implements RocksDBConfigSetter {

    /** Share of the budget memtables may use; the rest caches blocks, indexes and filters. */
    private static final double MEMTABLE_SHARE = 0.25;
    /** Share of the cache kept for index and filter blocks, so lookups never page them out. */
    private static final double HIGH_PRIORITY_SHARE = 0.1;
    private static final long BLOCK_SIZE = 4096;
    private static final int MEMTABLES_PER_STORE = 2;

    private static Cache cache;
    private static WriteBufferManager writeBufferManager;

    /** The shared cache and manager, made by the first store opened and sized by its configuration. */
    private static synchronized void ensureShared(long bytes) {
        if (cache == null) {
            cache = new LRUCache(bytes, -1, false, HIGH_PRIORITY_SHARE);
            writeBufferManager = new WriteBufferManager((long) (bytes * MEMTABLE_SHARE), cache);
        }
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Object configured = configs.get(EnforcerConfig.ROCKSDB_MEMORY_BYTES_CONFIG);
        ensureShared(configured == null ? EnforcerConfig.DEFAULT_ROCKSDB_MEMORY_BYTES : Long.parseLong(configured.toString()));
        // Kafka Streams hands over its own block-based table config; a bare Options has none yet.
        BlockBasedTableConfig table = options.tableFormatConfig() instanceof BlockBasedTableConfig given ? given
                : new BlockBasedTableConfig();
        table.setBlockCache(cache);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        table.setBlockSize(BLOCK_SIZE);
        options.setTableFormatConfig(table);
        options.setWriteBufferManager(writeBufferManager);
        options.setMaxWriteBufferNumber(MEMTABLES_PER_STORE);
    }

    @Override
    public void close(String storeName, Options options) {
        // The cache and the write buffer manager are shared by every store: closing one store keeps them.
    }
}
