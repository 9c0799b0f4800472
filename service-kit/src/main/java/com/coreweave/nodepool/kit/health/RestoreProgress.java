package com.coreweave.nodepool.kit.health;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * How many records this instance's stores have restored in all (Quarkus registers this bean as the Streams client's
 * restore listener): while it grows, a task that is not running yet is restoring, not stuck ({@link TaskStartWatch}).
 */
@ApplicationScoped
public class RestoreProgress implements StateRestoreListener {

    private final AtomicLong restored = new AtomicLong();

    public long restoredRecords() {
        return restored.get();
    }

    @Override
    public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
        // counted per batch
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
        restored.addAndGet(numRestored);
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        // counted per batch
    }
}
