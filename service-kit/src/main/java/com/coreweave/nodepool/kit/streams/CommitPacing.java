package com.coreweave.nodepool.kit.streams;

/**
 * When a stream thread should commit at once instead of at the next {@code commit.interval.ms}: as soon as it has
 * processed every record of a poll that left it caught up, with nothing more on any of its partitions. A record that
 * reaches a service with no backlog then crosses the hop in one commit's time (a few ms) instead of up to 100 ms;
 * a thread with a backlog keeps committing per interval, so that a burst is still written in few transactions. At
 * most one prompt commit per poll, and none while behind, so prompt commits cannot pile up under load.
 */
public final class CommitPacing {

  private int unprocessed;
  private boolean caughtUp;
  private String topic;
  private int partition;
  private long offset = -1;

  /** A poll returned {@code records} records; {@code caughtUp} if it left no lag on any partition. */
  public void polled(int records, boolean caughtUp) {
    if (records > 0) {
      unprocessed = records;
      this.caughtUp = caughtUp;
    }
  }

  /**
   * A processor is handed the input record at this position (every processor a record passes through says so; the
   * first counts it). True once the last record of a caught-up poll has arrived: the caller asks Streams to commit,
   * which it does right after the records being processed now.
   */
  public boolean processing(String topic, int partition, long offset) {
    if (offset == this.offset && partition == this.partition && topic.equals(this.topic)) {
      return false;
    }
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    if (unprocessed > 0 && --unprocessed == 0 && caughtUp) {
      caughtUp = false;
      return true;
    }
    return false;
  }
}
