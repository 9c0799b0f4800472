package com.coreweave.nodepool.kit.deadletter;

import com.coreweave.nodepool.kit.health.StreamThreadRecovery;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.jboss.logging.Logger;

/**
 * What a service does when its own processing code throws for one record (Kafka Streams'
 * {@code processing.exception.handler}, KIP-1033, set for every service in service-kit's configuration): the input
 * record goes to {@code <service>-dlq} as it was read (key and value; headers {@code dlq.error=ProcessingFailed}, the
 * exception's class and message as {@code dlq.reason}, the input's topic, partition and offset) in the same
 * transaction, and processing goes on with the next record. A new stream thread would fail on it the same way, so it no
 * longer shuts the service down. A punctuation that throws is dead-lettered the same way, without a record.
 *
 * <p>A failure of Kafka itself (a broker or transaction failure, which surfaces in a processor when it writes) is not
 * the record's fault: it fails the thread, which {@link StreamThreadRecovery} replaces as before.
 *
 * <p>Partial writes. Under exactly-once, Kafka Streams 4.1 does not undo what the processor did for the record before
 * it threw: records it forwarded (and their own processors' writes) and store writes stay in the open transaction and
 * commit with it, next to the dead letter and the input's offset. Only what came after the exception is missing. So a
 * processor must check a record before it writes anything for it.
 */
public class ProcessingDeadLetters implements ProcessingExceptionHandler {

    private static final Logger LOG = Logger.getLogger(ProcessingDeadLetters.class);

    private final Clock clock = Clock.systemUTC();
    private String service;

    @Override
    public void configure(Map<String, ?> configs) {
        service = String.valueOf(configs.get(StreamsConfig.APPLICATION_ID_CONFIG));
    }

    @Override
    public ProcessingHandlerResponse handle(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        if (StreamThreadRecovery.causedByKafka(exception)) {
            return ProcessingHandlerResponse.FAIL;
        }
        String what =
                record == null ? "a punctuation" : context.topic() + "-" + context.partition() + "@" + context.offset();
        LOG.errorf(
                exception,
                "%s failed on %s; dead-lettered to %s, processing goes on",
                context.processorNodeId(),
                what,
                DeadLetters.serviceTopic(service));
        DeadLetterOutbox.leave(DeadLetterRecords.letter(
                service,
                context,
                null,
                context.sourceRawKey(),
                context.sourceRawValue(),
                Code.PROCESSING_FAILED,
                exception + " (processor " + context.processorNodeId() + ")",
                clock.instant()));
        return ProcessingHandlerResponse.CONTINUE;
    }
}
