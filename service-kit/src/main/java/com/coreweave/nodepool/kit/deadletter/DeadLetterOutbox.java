package com.coreweave.nodepool.kit.deadletter;

import com.coreweave.nodepool.kit.streams.thread.StreamThreadState;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The dead letters Kafka Streams' exception handlers leave on a stream thread, for that thread's producer
 * ({@link DeadLetteringProducer}) to write in the thread's open transaction. Kafka Streams 4.1 gives a handler no way
 * to write a record itself (KIP-1034, a handler's dead-letter records, comes with 4.2), and a record written by a
 * producer of our own would be outside the transaction: written again each time an aborted transaction's input is
 * processed again. The handlers that leave letters run on the stream thread: a processor's exception, a record the
 * producer refused before sending it, a serializer's exception.
 */
final class DeadLetterOutbox {

    private DeadLetterOutbox() {}

    /** Leaves {@code letter} for this thread's producer; its value is cut to fit when it is written. */
    static void leave(ProducerRecord<byte[], byte[]> letter) {
        StreamThreadState.current().deadLetters().add(letter);
    }

    /** The letters left on this thread since the last take, which are then gone from here. */
    static List<ProducerRecord<byte[], byte[]>> take() {
        List<ProducerRecord<byte[], byte[]>> left = StreamThreadState.current().deadLetters();
        if (left.isEmpty()) {
            return List.of();
        }
        List<ProducerRecord<byte[], byte[]>> taken = List.copyOf(left);
        left.clear();
        return taken;
    }

    /** Drops the letters of an aborted transaction: its inputs are processed again and leave them again. */
    static void discard() {
        StreamThreadState.current().deadLetters().clear();
    }
}
