package com.coreweave.nodepool.kit.streams.thread;

import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * When a stream thread should commit at once instead of at the next {@code commit.interval.ms}.
 *
 * <ul>
 *   <li>At once: as soon as it has processed every record of a poll that left it caught up (nothing more on any of its
 *       partitions), if anything it wrote since its last commit is awaited (a record for the next service, a status a
 *       client watches), including what an earlier poll that was still behind wrote.
 *   <li>Why: a record that reaches a service with no backlog then crosses the hop in one commit's time (a few ms)
 *       instead of up to the interval.
 *   <li>Writes nobody waits for (input that only moves the offsets, a store's changelog) wait for the interval or ride
 *       along with the next prompt commit: a transaction costs the machine ~15 ms of CPU across broker and service.
 *   <li>A thread with a backlog keeps committing per interval, so a burst is still written in few transactions.
 *   <li>At most one prompt commit per poll, and none while behind, so prompt commits cannot pile up under load.
 *   <li>Services run exactly-once: the producer's transaction commit is what clears the writes.
 * </ul>
 */
public final class CommitPacing {

    private static final Logger LOG = Logger.getLogger(CommitPacing.class);

    private int unprocessed;
    private boolean caughtUp;
    private boolean awaited;
    /** Whether this thread's producer reports what it writes and commits (only then do actions after a commit run). */
    private boolean reported;

    private final List<Runnable> afterCommit = new ArrayList<>();
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
     * The thread's producer was handed a record for {@code topic}: awaited, unless it is a store's changelog (read only
     * to restore the store).
     */
    public void wrote(String topic) {
        reported = true;
        if (!topic.endsWith("-changelog")) {
            held();
        }
    }

    /** An output was held to be written with the commit ({@code FlushedOutputs}): awaited. */
    public void held() {
        awaited = true;
    }

    /**
     * A processor is handed the input record at this position (every processor a record passes through says so; the
     * first counts it). True once, when the last record of a caught-up poll arrives: that caller processes it, then
     * asks {@link #awaitedWrites()}.
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

    /**
     * Runs {@code action} once the thread's open transaction has committed, on this thread; a transaction that fails
     * drops it, and so does a thread whose producer does not report its commits. For answering a caller in this process
     * as soon as what it waits for is committed; the caller must be able to learn it another way too.
     */
    public void afterCommit(Runnable action) {
        if (reported) {
            afterCommit.add(action);
        }
    }

    /** The thread's transaction (or offset commit) went through: nothing it wrote waits any more. */
    public void committed() {
        awaited = false;
        List<Runnable> actions = List.copyOf(afterCommit);
        afterCommit.clear();
        for (Runnable action : actions) {
            try {
                action.run();
            } catch (RuntimeException e) {
                // The transaction is committed whatever an action does; its reader will learn it the slow way.
                LOG.warnf(e, "an action after a commit failed");
            }
        }
    }

    /** The thread's transaction was aborted or failed to commit: what it wrote is void, and so are its actions. */
    public void aborted() {
        awaited = false;
        afterCommit.clear();
    }

    /**
     * Whether anything written since the last commit is awaited (this poll's records, or an earlier poll's that was
     * behind): then a prompt commit is worth its cost.
     */
    public boolean awaitedWrites() {
        return awaited;
    }
}
