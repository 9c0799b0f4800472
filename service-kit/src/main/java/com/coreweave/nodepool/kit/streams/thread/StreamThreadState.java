package com.coreweave.nodepool.kit.streams.thread;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What one stream thread carries between Kafka Streams callbacks that have no way to pass it to each other; the only
 * stream-thread state kept beside Streams' own, one per thread.
 *
 * <ul>
 *   <li>{@link #pacing()}: what the thread's consumer, producer and processors tell each other so that a caught-up poll
 *       commits at once (the consumer and producer are handed to Streams by a client supplier, the processors by a
 *       wrapper: none can reach another).
 *   <li>{@link #deadLetters()}: letters the exception handlers leave for the thread's producer to write in the open
 *       transaction (Streams 4.1 gives a handler no way to write a record itself).
 *   <li>{@link #releasing()}: set while records a step held for the commit are forwarded, so tracing does not take them
 *       for a read of the last input record.
 * </ul>
 */
public final class StreamThreadState {

    private static final ThreadLocal<StreamThreadState> CURRENT = ThreadLocal.withInitial(StreamThreadState::new);

    private final CommitPacing pacing = new CommitPacing();
    private final List<ProducerRecord<byte[], byte[]>> deadLetters = new ArrayList<>();
    private boolean releasing;

    private StreamThreadState() {}

    /** The calling thread's state. */
    public static StreamThreadState current() {
        return CURRENT.get();
    }

    public CommitPacing pacing() {
        return pacing;
    }

    /** The letters left on this thread and not written yet; the dead-letter outbox adds to it and takes from it. */
    public List<ProducerRecord<byte[], byte[]>> deadLetters() {
        return deadLetters;
    }

    public boolean releasing() {
        return releasing;
    }

    public void releasing(boolean releasing) {
        this.releasing = releasing;
    }
}
