package com.coreweave.nodepool.kit.streams.store;

import java.util.function.Supplier;

/**
 * Kafka Streams 4.1 counts a store's open iterators without a lock: when two threads open a fresh store's first
 * iterators at once (the stream thread and an interactive query), it never registers the store's open-iterator metric
 * and then throws a {@link NullPointerException} while closing one, once, after the records were read. The records are
 * sound, so such a read is simply made again: it cannot fail the same way twice, since the lost count stays lost.
 */
public final class IteratorRace {

    private static final String OPEN_ITERATORS = "org.apache.kafka.streams.internals.metrics.OpenIterators";

    private IteratorRace() {}

    /** {@code read}'s answer, read again when its iterator's close failed on the race alone. */
    public static <T> T retried(Supplier<T> read) {
        try {
            return read.get();
        } catch (NullPointerException e) {
            if (!lost(e)) {
                throw e;
            }
            return read.get();
        }
    }

    /** Whether {@code e} is the race's: thrown while the open-iterator count forgot its metric. */
    static boolean lost(NullPointerException e) {
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getClassName().equals(OPEN_ITERATORS)
                    && frame.getMethodName().equals("remove")) {
                return true;
            }
        }
        return false;
    }
}
