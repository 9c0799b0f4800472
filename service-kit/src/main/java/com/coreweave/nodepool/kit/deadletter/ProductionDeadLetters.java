package com.coreweave.nodepool.kit.deadletter;

import com.coreweave.nodepool.kit.health.StreamThreadRecovery;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.jboss.logging.Logger;

/**
 * What a service does with a record it made but cannot write (Kafka Streams' {@code production.exception.handler}, set
 * for every service in service-kit's configuration): a record larger than its producer may send
 * ({@link RecordTooLargeToSend}) or one whose key or value does not serialize goes to {@code <service>-dlq} with the
 * {@code dlq.*} headers, its intended topic in {@code dlq.target.topic}, in the same transaction, and processing goes
 * on without it. Retrying either would fail the same way for ever.
 *
 * <p>Not skipped: a record of a store's changelog (the store would hold what its changelog does not, and a restore
 * would bring back the old value), and failures the broker reports after sending, which Kafka's producer has already
 * made fail the transaction. These fail the stream thread as Kafka's default handler does (a retriable one is retried);
 * {@link StreamThreadRecovery} replaces it and counts it, and readiness shows a replace loop.
 */
public class ProductionDeadLetters implements ProductionExceptionHandler {

    private static final Logger LOG = Logger.getLogger(ProductionDeadLetters.class);

    private final Clock clock = Clock.systemUTC();
    private String service;

    @Override
    public void configure(Map<String, ?> configs) {
        service = String.valueOf(configs.get(StreamsConfig.APPLICATION_ID_CONFIG));
    }

    @Override
    public ProductionExceptionHandlerResponse handle(
            ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        if (exception instanceof RecordTooLargeToSend && !record.topic().endsWith("-changelog")) {
            LOG.warnf(
                    "dead-lettered a record for %s that cannot be written: %s", record.topic(), exception.getMessage());
            DeadLetterOutbox.leave(DeadLetterRecords.letter(
                    service,
                    context,
                    record.topic(),
                    record.key(),
                    record.value(),
                    Code.RECORD_TOO_LARGE,
                    exception.getMessage(),
                    clock.instant()));
            return ProductionExceptionHandlerResponse.CONTINUE;
        }
        return exception instanceof RetriableException
                ? ProductionExceptionHandlerResponse.RETRY
                : ProductionExceptionHandlerResponse.FAIL;
    }

    @Override
    public ProductionExceptionHandlerResponse handleSerializationException(
            ErrorHandlerContext context,
            ProducerRecord record,
            Exception exception,
            SerializationExceptionOrigin origin) {
        String reason = origin.name().toLowerCase(Locale.ROOT) + " does not serialize: " + exception;
        LOG.warnf(exception, "dead-lettered a record for %s: its %s", record.topic(), reason);
        DeadLetterOutbox.leave(DeadLetterRecords.letter(
                service,
                context,
                record.topic(),
                bytes(record.key()),
                null,
                Code.SERIALIZATION_FAILED,
                reason,
                clock.instant()));
        return ProductionExceptionHandlerResponse.CONTINUE;
    }

    /** The key as far as it can be kept: ours are strings. */
    private static byte[] bytes(Object key) {
        return key == null
                ? null
                : key instanceof byte[] raw ? raw : key.toString().getBytes(StandardCharsets.UTF_8);
    }
}
