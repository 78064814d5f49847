package dev.quotaenforcer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** Every RocksDB store of the process is configured into one memory budget. */
class BoundedRocksDbMemoryTest {

    @Test
    void storesKeepIndexesInTheSharedCacheAndTwoMemtablesEach(@TempDir Path dir) throws Exception {
        RocksDB.loadLibrary();
        BoundedRocksDbMemory setter = new BoundedRocksDbMemory();
        try (Options options = new Options().setCreateIfMissing(true)) {
            setter.setConfig("quota-state", options,
                    Map.of(EnforcerConfig.ROCKSDB_MEMORY_BYTES_CONFIG, String.valueOf(64L * 1024 * 1024)));

            BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
            assertTrue(table.cacheIndexAndFilterBlocks());
            assertTrue(table.cacheIndexAndFilterBlocksWithHighPriority());
            assertTrue(table.pinTopLevelIndexAndFilter());
            assertEquals(2, options.maxWriteBufferNumber());
            try (RocksDB db = RocksDB.open(options, dir.toString())) {
                db.put(bytes("key"), bytes("value"));
                assertEquals("value", new String(db.get(bytes("key")), StandardCharsets.UTF_8),
                        "a store opens and works with the bounded options");
            }
            setter.close("quota-state", options);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
