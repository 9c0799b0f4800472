package com.coreweave.nodepool.kit.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler.ProcessingHandlerResponse;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.ProductionExceptionHandlerResponse;
import org.apache.kafka.streams.errors.ProductionExceptionHandler.SerializationExceptionOrigin;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which failures the handlers dead-letter (and leave for the thread's producer) and which they leave to Kafka. */
class DeadLetterHandlersTest {

    private static final byte[] KEY = "demo/pool".getBytes(StandardCharsets.UTF_8);
    private static final byte[] VALUE = "{\"big\":true}".getBytes(StandardCharsets.UTF_8);

    private final ProductionDeadLetters production = new ProductionDeadLetters();
    private final ProcessingDeadLetters processing = new ProcessingDeadLetters();

    @BeforeEach
    void configure() {
        Map<String, Object> config = Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "provisioner-service");
        production.configure(config);
        processing.configure(config);
        DeadLetterOutbox.discard();
    }

    @AfterEach
    void clear() {
        DeadLetterOutbox.discard();
    }

    @Test
    void aRecordTheProducerRefusedAsTooLargeIsDeadLetteredAndSkipped() {
        var response = production.handle(
                context(),
                new ProducerRecord<>("nodepool-nodes-changed", KEY, VALUE),
                new RecordTooLargeToSend("nodepool-nodes-changed", 1_992_294, 1_048_576));
        assertThat(response).isEqualTo(ProductionExceptionHandlerResponse.CONTINUE);
        ProducerRecord<byte[], byte[]> letter = DeadLetterOutbox.take().getFirst();
        assertThat(letter.topic()).isEqualTo("provisioner-service-dlq");
        assertThat(letter.key()).isEqualTo(KEY);
        assertThat(letter.value()).isEqualTo(VALUE);
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.ERROR))
                .isEqualTo("RecordTooLarge");
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.TARGET_TOPIC))
                .isEqualTo("nodepool-nodes-changed");
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.SOURCE_TOPIC))
                .isEqualTo("capacity-checked");
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.REASON))
                .contains("1992294 bytes");
    }

    @Test
    void aChangelogRecordOrAFailureAfterSendingIsNotSkipped() {
        assertThat(production.handle(
                        context(),
                        new ProducerRecord<>("provisioner-service-pools-changelog", KEY, VALUE),
                        new RecordTooLargeToSend("provisioner-service-pools-changelog", 2_000_000, 1_048_576)))
                .as("the store would hold what its changelog does not")
                .isEqualTo(ProductionExceptionHandlerResponse.FAIL);
        assertThat(production.handle(
                        context(),
                        new ProducerRecord<>("nodepool-nodes-changed", KEY, VALUE),
                        new RecordTooLargeException("from the broker")))
                .as("the transaction has failed already")
                .isEqualTo(ProductionExceptionHandlerResponse.FAIL);
        assertThat(production.handle(
                        context(),
                        new ProducerRecord<>("nodepool-nodes-changed", KEY, VALUE),
                        new NotEnoughReplicasException("one broker down")))
                .isEqualTo(ProductionExceptionHandlerResponse.RETRY);
        assertThat(DeadLetterOutbox.take()).isEmpty();
    }

    @Test
    void aValueThatDoesNotSerializeIsDeadLetteredWithItsKey() {
        var response = production.handleSerializationException(
                context(),
                new ProducerRecord<>("nodepool-nodes-changed", "demo/pool", new Object()),
                new SerializationException("no serializer for Object"),
                SerializationExceptionOrigin.VALUE);
        assertThat(response).isEqualTo(ProductionExceptionHandlerResponse.CONTINUE);
        ProducerRecord<byte[], byte[]> letter = DeadLetterOutbox.take().getFirst();
        assertThat(letter.key()).isEqualTo(KEY);
        assertThat(letter.value()).isNull();
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.ERROR))
                .isEqualTo("SerializationFailed");
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.REASON))
                .startsWith("value does not serialize: org.apache.kafka.common.errors.SerializationException");
    }

    @Test
    void aProcessorsOwnExceptionDeadLettersTheInputAsRead() {
        var response = processing.handle(
                context(),
                new Record<>("demo/pool", "parsed", 0L),
                new IllegalStateException("no ledger", new NullPointerException()));
        assertThat(response).isEqualTo(ProcessingHandlerResponse.CONTINUE);
        ProducerRecord<byte[], byte[]> letter = DeadLetterOutbox.take().getFirst();
        assertThat(letter.key()).isEqualTo(KEY);
        assertThat(letter.value()).isEqualTo(VALUE);
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.ERROR))
                .isEqualTo("ProcessingFailed");
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.REASON))
                .isEqualTo("java.lang.IllegalStateException: no ledger (processor decide-nodes)");
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.SOURCE_OFFSET))
                .isEqualTo("42");
    }

    @Test
    void aFailureOfKafkaInAProcessorFailsTheThreadToBeReplaced() {
        var fenced = new StreamsException("Error encountered sending record", new ProducerFencedException("fenced"));
        assertThat(processing.handle(context(), new Record<>("demo/pool", "parsed", 0L), fenced))
                .isEqualTo(ProcessingHandlerResponse.FAIL);
        assertThat(DeadLetterOutbox.take()).isEmpty();
    }

    /** The context of record 42 of capacity-checked, being processed by the node processor. */
    private static ErrorHandlerContext context() {
        return new ErrorHandlerContext() {
            @Override
            public String topic() {
                return "capacity-checked";
            }

            @Override
            public int partition() {
                return 1;
            }

            @Override
            public long offset() {
                return 42;
            }

            @Override
            public Headers headers() {
                return StreamsInternals.headers();
            }

            @Override
            public String processorNodeId() {
                return "decide-nodes";
            }

            @Override
            public TaskId taskId() {
                return new TaskId(0, 1);
            }

            @Override
            public long timestamp() {
                return 0;
            }

            @Override
            public byte[] sourceRawKey() {
                return KEY;
            }

            @Override
            public byte[] sourceRawValue() {
                return VALUE;
            }
        };
    }
}
