package com.coreweave.nodepool.kit.streams;

/**
 * When a stream thread should commit at once instead of at the next {@code commit.interval.ms}: as soon as it has
 * processed every record of a poll that left it caught up, with nothing more on any of its partitions, if anything it
 * wrote since its last commit waits (a record for the next service, a store's changelog), including what an earlier
 * poll that was still behind wrote. A record that reaches a service with no backlog then crosses the hop in one
 * commit's time (a few ms) instead of up to 100 ms, while input that only moves the offsets (a fact this service
 * ignores) waits for the interval, as a transaction costs the broker ~4 ms; a thread with a backlog keeps committing
 * per interval, so that a burst is still written in few transactions. At most one prompt commit per poll, and none
 * while behind, so prompt commits cannot pile up under load. (Services run exactly-once: the producer's transaction
 * commit is what clears the writes.)
 */
public final class CommitPacing {

  private int unprocessed;
  private boolean caughtUp;
  private boolean wrote;
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

  /** The thread's producer was handed a record to write. */
  public void wrote() {
    wrote = true;
  }

  /**
   * A processor is handed the input record at this position (every processor a record passes through says so; the
   * first counts it). True once, when the last record of a caught-up poll arrives: that caller processes it, then
   * asks {@link #uncommittedWrites()}.
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

  /** The thread's transaction (or offset commit) went through: nothing it wrote waits any more. */
  public void committed() {
    wrote = false;
  }

  /**
   * Whether anything written since the last commit waits for one (this poll's records, or an earlier poll's that was
   * behind): then a prompt commit is worth its cost.
   */
  public boolean uncommittedWrites() {
    return wrote;
  }
}
