package com.coreweave.nodepool.preemption.streams;

import java.time.Instant;

/**
 * Keys of the due index: the due time as zero-padded epoch milliseconds, then the node key. Sorted as strings they
 * are sorted by time, so a tick range-scans only what has come due instead of every timeline.
 */
final class DueIndex {

  private DueIndex() {
  }

  /** Below every key. */
  static final String FIRST = pad(0);

  static String key(Instant due, String nodeKey) {
    return pad(due.toEpochMilli()) + "|" + nodeKey;
  }

  /** Above every key due at or before {@code now} and below every key due later ('}' sorts after '|'). */
  static String upTo(Instant now) {
    return pad(now.toEpochMilli()) + "}";
  }

  private static String pad(long millis) {
    return String.format("%019d", millis);
  }
}
