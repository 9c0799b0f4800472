package com.coreweave.nodepool.api.messaging;

import java.util.ArrayDeque;

/**
 * What one partition's history in the {@link LiveFeed} holds: its changes from {@code coveredFrom} up to
 * {@code position}. Only used under the feed's lock.
 */
final class PartitionHistory {

    final ArrayDeque<SeenChange> history = new ArrayDeque<>();
    long bytes;
    long coveredFrom;
    long position;

    /** Keeps {@code seen}, dropping the oldest changes past {@code maxChanges} or {@code maxBytes}. */
    void keep(SeenChange seen, int maxChanges, long maxBytes) {
        history.addLast(seen);
        bytes += seen.bytes;
        while (history.size() > maxChanges || bytes > maxBytes) {
            SeenChange oldest = history.removeFirst();
            bytes -= oldest.bytes;
            coveredFrom = oldest.offset + 1;
        }
    }
}
