package com.coreweave.nodepool.kit.deadletter;

import com.coreweave.nodepool.schema.topics.DeadLetters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jboss.logging.Logger;

/**
 * The producer of a stream thread (given to Kafka Streams by {@code PromptCommitClients}). Three things on top of
 * Kafka's:
 *
 * <ul>
 *   <li>A record larger than it may send is refused before Kafka's producer sees it, with a
 *       {@link RecordTooLargeToSend} to the send's callback, so that the open transaction stays good and
 *       {@link ProductionDeadLetters} can dead-letter the record and let processing go on (Kafka's own refusal would
 *       fail the transaction).
 *   <li>It writes the dead letters the exception handlers left on its thread ({@link DeadLetterOutbox}) in the open
 *       transaction: before the next record, a flush and the commit; their values cut to fit.
 *   <li>It counts every dead letter it writes, whoever made it ({@code Inputs}, a service's own, the handlers), in
 *       {@code nodepool_dead_letters_total{service,topic,code}} once its transaction commits, so a transaction aborted
 *       and processed again counts once. {@code topic} is the topic the record was meant for when it could not be
 *       written, else the topic it was read from.
 * </ul>
 */
public class DeadLetteringProducer extends KafkaProducer<byte[], byte[]> {

    /** The counter's name; Prometheus shows it as {@code nodepool_dead_letters_total}. */
    public static final String DEAD_LETTERS = "nodepool.dead.letters";

    private static final Logger LOG = Logger.getLogger(DeadLetteringProducer.class);

    private final MeterRegistry registry;
    private final int limit;
    private final CompressionType compression;
    private final boolean transactional;
    /** Dead letters written in the open transaction, counted when it commits. */
    private final List<Tags> uncommitted = new ArrayList<>();
    /** Streams begins a transaction only before its first send or its commit, so a flush may come before either. */
    private boolean inTransaction;

    public DeadLetteringProducer(Map<String, Object> config, MeterRegistry registry) {
        super(config, new ByteArraySerializer(), new ByteArraySerializer());
        this.registry = registry;
        Map<String, Object> defaults = ProducerConfig.configDef().defaultValues();
        int maxRequest =
                (Integer) setting(config, defaults, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, ConfigDef.Type.INT);
        long memory = (Long) setting(config, defaults, ProducerConfig.BUFFER_MEMORY_CONFIG, ConfigDef.Type.LONG);
        this.limit = (int) Math.min(maxRequest, memory);
        this.compression = CompressionType.forName(
                (String) setting(config, defaults, ProducerConfig.COMPRESSION_TYPE_CONFIG, ConfigDef.Type.STRING));
        this.transactional = config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG) != null;
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
        writeDeadLetters();
        int size = DeadLetterRecords.size(record.key(), record.value(), record.headers(), compression);
        if (size > limit) {
            RecordTooLargeToSend refused = new RecordTooLargeToSend(record.topic(), size, limit);
            if (callback != null) {
                TopicPartition partition = new TopicPartition(
                        record.topic(),
                        Objects.requireNonNullElse(record.partition(), RecordMetadata.UNKNOWN_PARTITION));
                callback.onCompletion(new RecordMetadata(partition, -1, -1, RecordBatch.NO_TIMESTAMP, -1, -1), refused);
            }
            // What the handler made of it belongs to this transaction, ahead of the next record.
            writeDeadLetters();
            return CompletableFuture.failedFuture(refused);
        }
        countIfDeadLetter(record);
        return super.send(record, callback);
    }

    @Override
    public void beginTransaction() {
        super.beginTransaction();
        inTransaction = true;
    }

    @Override
    public void flush() {
        // Outside a transaction the letters wait for the commit's offsets, which Streams sends in one.
        if (!transactional || inTransaction) {
            writeDeadLetters();
        }
        super.flush();
    }

    @Override
    public void sendOffsetsToTransaction(
            Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata groupMetadata) {
        writeDeadLetters();
        super.sendOffsetsToTransaction(offsets, groupMetadata);
    }

    @Override
    public void commitTransaction() {
        writeDeadLetters();
        super.commitTransaction();
        inTransaction = false;
        uncommitted.forEach(this::increment);
        uncommitted.clear();
    }

    @Override
    public void abortTransaction() {
        DeadLetterOutbox.discard();
        uncommitted.clear();
        inTransaction = false;
        super.abortTransaction();
    }

    private void writeDeadLetters() {
        for (ProducerRecord<byte[], byte[]> letter : DeadLetterOutbox.take()) {
            ProducerRecord<byte[], byte[]> fitted = DeadLetterRecords.fitted(
                    letter.topic(), letter.key(), letter.value(), letter.headers(), limit, compression);
            countIfDeadLetter(fitted);
            super.send(fitted, (metadata, failure) -> {
                if (failure != null) {
                    // The transaction fails with it and its input is processed again, which leaves the letter again.
                    LOG.warnf(failure, "could not write a dead letter to %s", fitted.topic());
                }
            });
        }
    }

    private void countIfDeadLetter(ProducerRecord<byte[], byte[]> record) {
        String code =
                record.topic().endsWith("-dlq") ? DeadLetterRecords.header(record.headers(), DeadLetters.ERROR) : null;
        if (code == null) {
            return;
        }
        String target = DeadLetterRecords.header(record.headers(), DeadLetters.TARGET_TOPIC);
        String topic = target != null ? target : DeadLetterRecords.header(record.headers(), DeadLetters.SOURCE_TOPIC);
        Tags tags = Tags.of(
                "service",
                Objects.requireNonNullElse(DeadLetterRecords.header(record.headers(), DeadLetters.SERVICE), "unknown"),
                "topic",
                Objects.requireNonNullElse(topic, "none"),
                "code",
                code);
        if (transactional) {
            uncommitted.add(tags);
        } else {
            increment(tags);
        }
    }

    private void increment(Tags tags) {
        Counter.builder(DEAD_LETTERS)
                .description("Records dead-lettered, by service, topic and dlq.error code")
                .tags(tags)
                .register(registry)
                .increment();
    }

    private static Object setting(
            Map<String, Object> config, Map<String, Object> defaults, String name, ConfigDef.Type type) {
        return ConfigDef.parseType(name, config.getOrDefault(name, defaults.get(name)), type);
    }
}
