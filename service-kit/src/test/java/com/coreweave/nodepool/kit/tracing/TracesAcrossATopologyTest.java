package com.coreweave.nodepool.kit.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.streams.ProcessorLayers;
import com.coreweave.nodepool.kit.streams.commit.CommitOutputs;
import com.coreweave.nodepool.kit.streams.commit.FlushedOutputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.time.DurableTimers;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.StreamSupport;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A topology built as the services build theirs, whose processor writes at once, holds an output for the commit, makes
 * one at the commit, or files a timer: each record it reads is one span, child of the trace the record came with, and
 * whatever the record leads to is written with the trace of the step that caused it, also when written later.
 */
class TracesAcrossATopologyTest {

    private static final String APPLICATION = "traces-test";
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT = "00f067aa0ba902b7";
    private static final String TRACEPARENT = "00-" + TRACE + "-" + PARENT + "-01";
    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final SdkTracerProvider tracers = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(spans))
            .build();
    private final MovingClock clock = new MovingClock();
    private TopologyTestDriver driver;
    private TestInputTopic<String, String> requests;
    private TestOutputTopic<String, String> written;

    @BeforeEach
    void start() {
        ServiceTracer.use(tracers.get("test"));
        StreamsBuilder builder = ProcessorLayers.streamsBuilder();
        builder.addStateStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("held"), Serdes.String(), Serdes.String())
                        .withCachingEnabled());
        builder.addStateStore(CommitOutputs.layered(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("checks"), Serdes.String(), Serdes.String())));
        builder.addStateStore(DurableTimers.store("due"));
        KStream<String, Outbound> outputs = builder.stream("requests", Consumed.with(Serdes.String(), Serdes.String()))
                .mapValues(value -> value, Named.as("read"))
                .process(() -> new Steps(clock), Named.as("steps"), "held", "checks", "due");
        Outbound.route(outputs, "write");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props, T0);
        requests = driver.createInputTopic(
                "requests", Serdes.String().serializer(), Serdes.String().serializer());
        written = driver.createOutputTopic(
                "written", Serdes.String().deserializer(), Serdes.String().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
        ServiceTracer.use(null);
        tracers.close();
    }

    @Test
    void aStepIsOneSpanChildOfTheTraceItsRecordCameWithAndWhatItWritesCarriesTheStep() {
        requests.pipeInput(record("now", Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=1")));

        SpanData step = onlySpan();
        assertThat(step.getName()).isEqualTo(APPLICATION + " requests");
        assertThat(step.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(step.getTraceId()).isEqualTo(TRACE);
        assertThat(step.getParentSpanId()).isEqualTo(PARENT);
        assertThat(step.getAttributes().asMap()).containsValue("requests").containsValue("pool-a");
        Headers headers = written.readRecord().headers();
        assertThat(traceparents(headers)).containsExactly("00-" + TRACE + "-" + step.getSpanId() + "-01");
        assertThat(header(headers, "tracestate")).isEqualTo("vendor=1");
    }

    @Test
    void aRecordWithoutTraceContextStartsATrace() {
        requests.pipeInput(record("now", Map.of()));

        SpanData step = onlySpan();
        assertThat(step.getParentSpanContext().isValid()).isFalse();
        assertThat(traceparents(written.readRecord().headers()))
                .containsExactly("00-" + step.getTraceId() + "-" + step.getSpanId() + "-01");
    }

    @Test
    void traceContextThatIsMalformedOrTooLongStartsATraceAndIsNotPassedOn() {
        String tooLong = TRACEPARENT + "-" + "a".repeat(TraceHeaders.MAX_TRACEPARENT);
        for (String traceparent : List.of("00-not-a-trace-01", "00-" + TRACE + "-" + PARENT, tooLong)) {
            spans.reset();
            requests.pipeInput(record("now", Map.of("traceparent", traceparent)));

            SpanData step = onlySpan();
            assertThat(step.getParentSpanContext().isValid()).as(traceparent).isFalse();
            assertThat(step.getTraceId()).as(traceparent).isNotEqualTo(TRACE);
            assertThat(traceparents(written.readRecord().headers()))
                    .as(traceparent)
                    .containsExactly("00-" + step.getTraceId() + "-" + step.getSpanId() + "-01");
        }
    }

    @Test
    void aKeyLongerThanAnyPoolsIsNotRecordedOnTheSpan() {
        String key = "org/" + "p".repeat(TracedProcessors.MAX_KEY_ATTRIBUTE);
        requests.pipeInput(new TestRecord<>(key, "now"));

        assertThat(onlySpan().getAttributes().asMap()).doesNotContainValue(key);
    }

    @Test
    void aTracestateTooLongIsDroppedAndTheParentKept() {
        String tooLong = "vendor=" + "a".repeat(TraceHeaders.MAX_TRACESTATE);
        requests.pipeInput(record("now", Map.of("traceparent", TRACEPARENT, "tracestate", tooLong)));

        assertThat(onlySpan().getParentSpanId()).isEqualTo(PARENT);
        assertThat(header(written.readRecord().headers(), "tracestate")).isNull();
    }

    @Test
    void anOutputHeldForTheCommitCarriesTheTraceOfTheStepThatHeldIt() {
        requests.pipeInput(record("held", Map.of("traceparent", TRACEPARENT)));

        SpanData step = onlySpan();
        TestRecord<String, String> output = written.readRecord();
        assertThat(output.value()).isEqualTo("\"held\"");
        assertThat(traceparents(output.headers())).containsExactly("00-" + TRACE + "-" + step.getSpanId() + "-01");
    }

    @Test
    void anOutputMadeAtTheCommitCarriesTheTraceOfTheStepThatHeldForIt() {
        requests.pipeInput(record("commit", Map.of("traceparent", TRACEPARENT)));

        SpanData step = onlySpan();
        TestRecord<String, String> output = written.readRecord();
        assertThat(output.value()).isEqualTo("\"checked\"");
        assertThat(traceparents(output.headers())).containsExactly("00-" + TRACE + "-" + step.getSpanId() + "-01");
    }

    @Test
    void whatATimerDoesIsASpanChildOfTheStepThatFiledIt() {
        requests.pipeInput(record("timer", Map.of("traceparent", TRACEPARENT)));
        SpanData filer = onlySpan();

        clock.now = T0.plusSeconds(1);
        driver.advanceWallClockTime(Duration.ofSeconds(1));

        SpanData fired = spans.getFinishedSpanItems().get(1);
        assertThat(fired.getName()).isEqualTo(APPLICATION + " timer");
        assertThat(fired.getTraceId()).isEqualTo(TRACE);
        assertThat(fired.getParentSpanId()).isEqualTo(filer.getSpanId());
        TestRecord<String, String> output = written.readRecord();
        assertThat(output.value()).isEqualTo("\"fired\"");
        assertThat(traceparents(output.headers())).containsExactly("00-" + TRACE + "-" + fired.getSpanId() + "-01");
    }

    @Test
    void withTracingOffNoSpanIsMadeAndNoTraceContextWritten() {
        ServiceTracer.use(null);

        requests.pipeInput(record("now", Map.of("traceparent", TRACEPARENT)));
        requests.pipeInput(record("held", Map.of("traceparent", TRACEPARENT)));

        assertThat(spans.getFinishedSpanItems()).isEmpty();
        assertThat(written.readRecordsToList())
                .hasSize(2)
                .allSatisfy(output -> assertThat(traceparents(output.headers())).isEmpty());
    }

    private SpanData onlySpan() {
        assertThat(spans.getFinishedSpanItems()).hasSize(1);
        return spans.getFinishedSpanItems().getFirst();
    }

    private static TestRecord<String, String> record(String step, Map<String, String> headers) {
        TestRecord<String, String> record = new TestRecord<>("pool-a", step);
        headers.forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    private static List<String> traceparents(Headers headers) {
        return StreamSupport.stream(headers.headers("traceparent").spliterator(), false)
                .map(header -> new String(header.value(), StandardCharsets.UTF_8))
                .toList();
    }

    private static String header(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /**
     * A processor whose input names what it does: write at once ({@code now}), hold an output for the commit
     * ({@code held}), make one at the commit ({@code commit}), or file a timer that writes when it fires a second later
     * ({@code timer}).
     */
    private static final class Steps implements Processor<String, String, String, Outbound> {
        private final Clock clock;
        private final List<String> checked = new ArrayList<>();
        private ProcessorContext<String, Outbound> context;
        private FlushedOutputs<Outbound> held;
        private CommitOutputs<Outbound> checks;
        private KeyValueStore<String, String> heldStore;
        private KeyValueStore<String, String> checkStore;
        private DurableTimers timers;

        Steps(Clock clock) {
            this.clock = clock;
        }

        @Override
        public void init(ProcessorContext<String, Outbound> context) {
            this.context = context;
            heldStore = context.getStateStore("held");
            checkStore = context.getStateStore("checks");
            held = FlushedOutputs.of(context, heldStore);
            checks = CommitOutputs.atCommit(context, checkStore, this::checkedAtCommit);
            timers = DurableTimers.start(context, "due", Duration.ofSeconds(1), clock, this::fired);
        }

        @Override
        public void process(Record<String, String> record) {
            String key = record.key();
            switch (record.value()) {
                case "now" -> context.forward(new Record<>(key, new Outbound("written", "now"), 0L));
                case "held" -> {
                    heldStore.put(key, "held");
                    held.hold(new Record<>(key, new Outbound("written", "held"), 0L));
                }
                case "commit" -> {
                    checkStore.put(key, "checked");
                    checked.add(key);
                    checks.holding(key);
                }
                case "timer" -> timers.move(key, null, clock.instant().plusSeconds(1));
                default -> throw new IllegalArgumentException(record.value());
            }
        }

        private List<Record<String, Outbound>> checkedAtCommit() {
            List<Record<String, Outbound>> outputs = checked.stream()
                    .map(key -> new Record<>(key, new Outbound("written", "checked"), 0L))
                    .toList();
            checked.clear();
            return outputs;
        }

        private void fired(String key, Instant now) {
            context.forward(new Record<>(key, new Outbound("written", "fired"), now.toEpochMilli()));
        }
    }

    private static final class MovingClock extends Clock {
        private Instant now = T0;

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
