package com.coreweave.nodepool.kit.deadletter;

import org.apache.kafka.common.errors.RecordTooLargeException;

/**
 * A record {@link DeadLetteringProducer} refused before the Kafka producer saw it. Kafka's own refusal of a record too
 * large (KafkaProducer's size check) also fails the open transaction (KAFKA-9279), so under exactly-once no handler
 * could skip the record: the transaction aborts and the same input fails again, for ever. Refused here, it fails alone
 * and {@link ProductionDeadLetters} can dead-letter it.
 */
final class RecordTooLargeToSend extends RecordTooLargeException {

    RecordTooLargeToSend(String topic, int size, int limit) {
        super("The record for " + topic + " is " + size + " bytes when serialized, which is larger than the " + limit
                + " bytes this producer may send (max.request.size, buffer.memory)");
    }
}
