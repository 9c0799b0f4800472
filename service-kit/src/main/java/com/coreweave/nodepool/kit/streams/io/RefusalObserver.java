package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.schema.topics.Rejection;

/**
 * Told of each record {@link Inputs} refuses, as it refuses it, for what a service does besides dead-lettering it (an
 * audit line for a refused write). Called inside the task's processing: it must not block, and what it throws fails the
 * record.
 */
@FunctionalInterface
public interface RefusalObserver {

    RefusalObserver NONE = refused -> {};

    void refused(RefusedRecord refused);

    /** A refused record: the topic, partition and offset it was read from, its key and value as received, and why. */
    record RefusedRecord(String topic, int partition, long offset, String key, byte[] value, Rejection rejection) {}
}
