package com.coreweave.nodepool.kit.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.deadletter.DeadLetteringProducer;
import com.coreweave.nodepool.kit.deadletter.ProcessingDeadLetters;
import com.coreweave.nodepool.kit.deadletter.ProductionDeadLetters;
import com.coreweave.nodepool.localkafka.EmbeddedKafka;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A Kafka Streams app wired as every service is (exactly-once, service-kit's exception handlers and stream-thread
 * producer, {@link StreamThreadRecovery}, {@link StreamsReadiness}) against a real broker: what an operator sees in the
 * dead-letter topic, the metrics and readiness when one record cannot be written, one makes the processor throw, and
 * one wedges it. The records all go to one partition, each after the one before it, so "the next record is processed"
 * means the one behind the bad one on the same partition.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UnwritableAndFailingRecordsTest {

    private static final String SERVICE =
            "kit-test-" + UUID.randomUUID().toString().substring(0, 8);
    private static final String IN = SERVICE + "-in";
    private static final String OUT = SERVICE + "-out";
    private static final String DLQ = DeadLetters.serviceTopic(SERVICE);
    /** What the test's producer may send: the big record's 5,000 bytes are over it, everything else under. */
    private static final int MAX_REQUEST_SIZE = 2048;

    private static final CountDownLatch RELEASE = new CountDownLatch(1);
    private static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();
    /** What last reached the uncaught-exception handler: a failure's message says it. */
    private static final AtomicReference<Throwable> LAST_UNCAUGHT = new AtomicReference<>();

    private static EmbeddedKafka kafka;
    private static KafkaStreams streams;
    private static StreamsReadiness readiness;
    private static KafkaProducer<String, String> input;

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.shared();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(
                            new NewTopic(IN, 1, (short) 1),
                            new NewTopic(OUT, 1, (short) 1),
                            new NewTopic(DLQ, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(IN, Consumed.with(Serdes.String(), Serdes.String()))
                .process(TestProcessor::new)
                .to(OUT, Produced.with(Serdes.String(), Serdes.String()));

        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, SERVICE);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createTempDirectory("kit-test").toString());
        props.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, ProductionDeadLetters.class);
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, ProcessingDeadLetters.class);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), MAX_REQUEST_SIZE);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");
        streams = new KafkaStreams(builder.build(), props, new KafkaClientSupplier() {
            @Override
            public Admin getAdmin(Map<String, Object> config) {
                return Admin.create(config);
            }

            @Override
            public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
                return new DeadLetteringProducer(config, REGISTRY);
            }

            @Override
            public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
                return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            }

            @Override
            public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
                return getConsumer(config);
            }

            @Override
            public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
                return getConsumer(config);
            }
        });
        StreamThreadRecovery recovery =
                new StreamThreadRecovery(new ReplaceLoop(5, Duration.ofMinutes(5)), REGISTRY, Clock.systemUTC());
        streams.setUncaughtExceptionHandler(exception -> {
            LAST_UNCAUGHT.set(exception);
            return recovery.handle(exception);
        });
        readiness = new StreamsReadiness();
        readiness.streams = streams;
        readiness.recovery = recovery;
        readiness.clock = Clock.systemUTC();
        readiness.settings = new HealthSettings() {
            @Override
            public Duration stallTimeout() {
                return Duration.ofSeconds(2);
            }

            @Override
            public int replaceLoopReplacements() {
                return 5;
            }

            @Override
            public Duration replaceLoopWindow() {
                return Duration.ofMinutes(5);
            }

            @Override
            public Duration livenessTimeout() {
                return Duration.ofMinutes(5);
            }
        };
        readiness.restores = new RestoreProgress();
        // This client runs without application.server, so it sees no assignment of its own to watch.
        readiness.applicationServer = "localhost:0";
        streams.start();
        input = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer());
        await(() -> readiness.call().getStatus() == HealthCheckResponse.Status.UP, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        RELEASE.countDown();
        if (input != null) {
            input.close();
        }
        if (streams != null) {
            streams.close(Duration.ofSeconds(10));
        }
    }

    @Test
    @Order(1)
    void aRecordTooLargeToWriteIsDeadLetteredAndTheNextRecordIsProcessed() throws Exception {
        send("pool-a", "ok");
        send("pool-big", "big");
        send("pool-b", "ok");

        List<ConsumerRecord<String, byte[]>> out = readUntil(OUT, 2);
        assertThat(out).extracting(ConsumerRecord::key).containsExactly("pool-a", "pool-b");
        ConsumerRecord<String, byte[]> dead = readUntil(DLQ, 1).getFirst();
        assertThat(dead.key()).isEqualTo("pool-big");
        assertThat(headers(dead))
                .containsEntry(DeadLetters.ERROR, "RecordTooLarge")
                .containsEntry(DeadLetters.TARGET_TOPIC, OUT)
                .containsEntry(DeadLetters.SOURCE_TOPIC, IN)
                .containsEntry(DeadLetters.SOURCE_OFFSET, "1")
                .containsEntry(DeadLetters.SERVICE, SERVICE)
                .containsEntry(DeadLetters.TRUNCATED, "5000")
                .containsKey(DeadLetters.FAILED_AT);
        assertThat(headers(dead).get(DeadLetters.REASON)).contains("5").contains("larger than the " + MAX_REQUEST_SIZE);
        // As much of the value as fits under the producer's limit, from its beginning.
        assertThat(new String(dead.value(), StandardCharsets.UTF_8))
                .startsWith("xxxx")
                .hasSizeGreaterThan(1000)
                .hasSizeLessThan(MAX_REQUEST_SIZE);
        await(() -> deadLetters("RecordTooLarge", OUT) == 1, Duration.ofSeconds(5));
    }

    @Test
    @Order(2)
    void aProcessorThatThrowsForOneRecordHasItDeadLetteredAndGoesOn() throws Exception {
        send("pool-c", "throw");
        send("pool-d", "ok");

        assertThat(readUntil(OUT, 3)).extracting(ConsumerRecord::key).endsWith("pool-d");
        ConsumerRecord<String, byte[]> dead = readUntil(DLQ, 2).get(1);
        assertThat(dead.key()).isEqualTo("pool-c");
        assertThat(new String(dead.value(), StandardCharsets.UTF_8))
                .as("the input as it was read")
                .isEqualTo("throw");
        assertThat(headers(dead))
                .containsEntry(DeadLetters.ERROR, "ProcessingFailed")
                .containsEntry(DeadLetters.SOURCE_TOPIC, IN)
                .containsEntry(DeadLetters.SOURCE_OFFSET, "3")
                .doesNotContainKey(DeadLetters.TARGET_TOPIC);
        assertThat(headers(dead).get(DeadLetters.REASON))
                .startsWith("java.lang.IllegalStateException: no quota ledger for pool-c");
        await(() -> deadLetters("ProcessingFailed", IN) == 1, Duration.ofSeconds(5));
        assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }

    @Test
    @Order(3)
    void whatAProcessorWroteBeforeItThrewIsCommittedNextToTheDeadLetter() throws Exception {
        // The caveat of dead-lettering under exactly-once: Kafka Streams does not take back a failed record's writes.
        send("pool-e", "write-then-throw");
        send("pool-f", "ok");

        assertThat(readUntil(OUT, 5)).extracting(ConsumerRecord::key).endsWith("pool-e", "pool-f");
        ConsumerRecord<String, byte[]> dead = readUntil(DLQ, 3).get(2);
        assertThat(headers(dead))
                .containsEntry(DeadLetters.ERROR, "ProcessingFailed")
                .containsEntry(DeadLetters.SOURCE_OFFSET, "5");
        assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("write-then-throw");
    }

    @Test
    @Order(4)
    void aWedgedTaskTakesTheInstanceOutOfReadinessUntilItMovesAgain() throws Exception {
        assertThat(readiness.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        send("pool-g", "block");
        send("pool-h", "ok");

        await(() -> readiness.call().getStatus() == HealthCheckResponse.Status.DOWN, Duration.ofSeconds(15));
        assertThat(readiness.call().getData().orElseThrow().get("reason").toString())
                .startsWith("task 0_0 has records waiting on " + IN + "-0");
        assertThat(readiness.verdict().stalledTasks()).isEqualTo(1);

        RELEASE.countDown();
        assertThat(readUntil(OUT, 7)).extracting(ConsumerRecord::key).endsWith("pool-g", "pool-h");
        await(() -> readiness.call().getStatus() == HealthCheckResponse.Status.UP, Duration.ofSeconds(15));
        assertThat(readiness.verdict().stalledTasks()).isZero();
    }

    @Test
    @Order(5)
    void noStreamThreadLeftIsNotReady() throws Exception {
        streams.removeStreamThread(Duration.ofSeconds(30));
        await(() -> readiness.call().getStatus() == HealthCheckResponse.Status.DOWN, Duration.ofSeconds(15));
        assertThat(readiness.call().getData().orElseThrow().get("reason")).isEqualTo("no stream thread is left");
    }

    /** Plays a service's processor: most records pass, some fail as a bug or bad data would make ours fail. */
    private static final class TestProcessor implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, String> record) {
            switch (record.value()) {
                case "big" -> context.forward(record.withValue("x".repeat(5000)));
                case "throw" -> throw new IllegalStateException("no quota ledger for " + record.key());
                case "write-then-throw" -> {
                    context.forward(record.withValue("written before the failure"));
                    throw new IllegalStateException("failed after writing");
                }
                case "block" -> {
                    try {
                        RELEASE.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    context.forward(record);
                }
                default -> context.forward(record);
            }
        }
    }

    private static double deadLetters(String code, String topic) {
        var counter = REGISTRY.find(DeadLetteringProducer.DEAD_LETTERS)
                .tags("service", SERVICE, "code", code, "topic", topic)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private static void send(String key, String value) throws Exception {
        input.send(new ProducerRecord<>(IN, 0, key, value)).get(10, TimeUnit.SECONDS);
    }

    /** The first {@code count} committed records of {@code topic}, waiting up to 30 s for them. */
    private static List<ConsumerRecord<String, byte[]>> readUntil(String topic, int count) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
            Instant deadline = Instant.now().plusSeconds(30);
            while (read.size() < count) {
                if (Instant.now().isAfter(deadline)) {
                    throw new AssertionError(
                            topic + " has " + read.size() + " of " + count + " records after 30 s; Streams is "
                                    + streams.state() + ", last uncaught: " + LAST_UNCAUGHT.get(),
                            LAST_UNCAUGHT.get());
                }
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
            return read;
        }
    }

    private static Map<String, String> headers(ConsumerRecord<String, byte[]> record) {
        Map<String, String> headers = new HashMap<>();
        for (Header header : record.headers()) {
            headers.putIfAbsent(header.key(), new String(header.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    private static void await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("condition not met within " + timeout);
            }
            Thread.sleep(50);
        }
    }
}
