package com.coreweave.nodepool.kit.streams.time;

import java.time.Instant;

/**
 * Keys of a durable timer index (a key-value store beside the state it schedules): the due time as zero-padded epoch
 * milliseconds, then the key of what is due. Sorted as strings they are sorted by time, so a tick range-scans only what
 * has come due instead of everything scheduled.
 */
public final class DueIndex {

    private DueIndex() {}

    /** Below every key. */
    public static final String FIRST = pad(0);

    public static String key(Instant due, String dueKey) {
        return pad(due.toEpochMilli()) + "|" + dueKey;
    }

    /** Above every key due at or before {@code now} and below every key due later ('}' sorts after '|'). */
    public static String upTo(Instant now) {
        return pad(now.toEpochMilli()) + "}";
    }

    private static String pad(long millis) {
        return String.format("%019d", millis);
    }
}
