package com.coreweave.nodepool.kit.streams.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Timers of a processor that files one per key from its input (the value is when, empty cancels) and writes what fires:
 * each fires once when its time has come, in time order, at its latest time, never after it was cancelled, and the
 * store holds only the timers still to fire.
 */
class DurableTimersTest {

    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
    private static final Duration TICK = Duration.ofSeconds(1);

    private final MovingClock clock = new MovingClock();
    private TopologyTestDriver driver;
    private TestInputTopic<String, String> alarms;
    private TestOutputTopic<String, String> fired;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(DurableTimers.store("alarms-due"));
        builder.stream("alarms", Consumed.with(Serdes.String(), Serdes.String()))
                .process(() -> new Alarms(clock), "alarms-due")
                .to("fired", Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "durable-timers-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props, T0);
        alarms = driver.createInputTopic(
                "alarms", Serdes.String().serializer(), Serdes.String().serializer());
        fired = driver.createOutputTopic(
                "fired", Serdes.String().deserializer(), Serdes.String().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void firesATimerOnceWhenItsTimeHasCome() {
        alarms.pipeInput("boot", at(5));

        advance(4);
        assertThat(fired.readValuesToList()).isEmpty();
        advance(1);
        assertThat(fired.readKeyValuesToMap()).containsExactly(Map.entry("boot", "fired at " + T0.plusSeconds(5)));
        advance(10);
        assertThat(fired.isEmpty()).isTrue();
        assertThat(filed()).isZero();
    }

    @Test
    void firesEveryDueTimerOfATickInTheOrderTheyCameDue() {
        alarms.pipeInput("drain", at(3));
        alarms.pipeInput("boot", at(2));
        alarms.pipeInput("later", at(9));

        advance(5);

        assertThat(fired.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("boot", "drain");
        assertThat(filed()).isEqualTo(1);
    }

    @Test
    void aMovedTimerFiresAtItsNewTimeOnlyAndACancelledOneNever() {
        alarms.pipeInput("boot", at(2));
        alarms.pipeInput("drain", at(3));
        alarms.pipeInput("boot", at(6));
        alarms.pipeInput("drain", "");

        advance(5);
        assertThat(fired.isEmpty()).isTrue();
        advance(1);

        assertThat(fired.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("boot");
        assertThat(filed()).isZero();
    }

    @Test
    void aTimerFiledAgainWhileItFiresFiresAgainLater() {
        alarms.pipeInput("retry", at(1));

        advance(1);
        advance(1);
        advance(1);

        assertThat(fired.readValuesToList())
                .containsExactly(
                        "fired at " + T0.plusSeconds(1),
                        "fired at " + T0.plusSeconds(2),
                        "fired at " + T0.plusSeconds(3));
    }

    @Test
    void aTickThatFiredAsksForACommitAndOneThatFiredNothingDoesNot() {
        MockProcessorContext<String, String> context = contextWithStore();
        DurableTimers timers = DurableTimers.start(context, "alarms-due", TICK, clock, (key, now) -> {});
        timers.move("boot", null, T0.plusSeconds(2));
        Punctuator tick = context.scheduledPunctuators().get(0).getPunctuator();

        clock.now = T0.plusSeconds(1);
        tick.punctuate(clock.now.toEpochMilli());
        assertThat(context.committed()).as("nothing due yet").isFalse();

        clock.now = T0.plusSeconds(2);
        tick.punctuate(clock.now.toEpochMilli());
        assertThat(context.committed())
                .as("a timer fired: its output is not left for the commit interval")
                .isTrue();
    }

    @Test
    void itTicksOnlyWhileATimerIsFiled() {
        MockProcessorContext<String, String> context = contextWithStore();
        DurableTimers timers = DurableTimers.start(context, "alarms-due", TICK, clock, (key, now) -> {});
        assertThat(context.scheduledPunctuators())
                .as("nothing filed: an idle task must not punctuate, as Streams " + "commits after every punctuation")
                .isEmpty();

        timers.move("boot", null, T0.plusSeconds(2));
        assertThat(context.scheduledPunctuators()).hasSize(1);
        MockProcessorContext.CapturedPunctuator ticker =
                context.scheduledPunctuators().get(0);
        assertThat(ticker.getInterval()).isEqualTo(TICK);

        clock.now = T0.plusSeconds(2);
        ticker.getPunctuator().punctuate(clock.now.toEpochMilli());
        assertThat(ticker.cancelled()).as("the last timer fired").isTrue();

        timers.move("drain", null, T0.plusSeconds(9));
        assertThat(context.scheduledPunctuators()).hasSize(2);
        assertThat(context.scheduledPunctuators().get(1).cancelled()).isFalse();
    }

    @Test
    void aRestartedTaskTicksAtOnceForTheTimersItsStoreHolds() {
        MockProcessorContext<String, String> context = contextWithStore();
        DurableTimers.start(context, "alarms-due", TICK, clock, (key, now) -> {})
                .move("boot", null, T0.plusSeconds(2));
        MockProcessorContext<String, String> restarted = new MockProcessorContext<>();
        restarted.addStateStore(context.getStateStore("alarms-due"));

        DurableTimers.start(restarted, "alarms-due", TICK, clock, (key, now) -> {});

        assertThat(restarted.scheduledPunctuators()).hasSize(1);
    }

    private static MockProcessorContext<String, String> contextWithStore() {
        MockProcessorContext<String, String> context = new MockProcessorContext<>();
        KeyValueStore<String, String> store = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore("alarms-due"), Serdes.String(), Serdes.String())
                .withLoggingDisabled()
                .build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        return context;
    }

    private static String at(int seconds) {
        return T0.plusSeconds(seconds).toString();
    }

    private void advance(int seconds) {
        clock.now = clock.now.plusSeconds(seconds);
        driver.advanceWallClockTime(Duration.ofSeconds(seconds));
    }

    private long filed() {
        KeyValueStore<String, String> store = driver.getKeyValueStore("alarms-due");
        try (var all = store.all()) {
            long count = 0;
            for (; all.hasNext(); all.next()) {
                count++;
            }
            return count;
        }
    }

    /**
     * Files one timer per key; a key named "retry" files itself again a second after each firing, as a processor whose
     * work is not done yet would.
     */
    private static final class Alarms implements Processor<String, String, String, String> {

        private final Clock clock;
        private final Map<String, Instant> filed = new HashMap<>();
        private DurableTimers timers;
        private ProcessorContext<String, String> context;

        Alarms(Clock clock) {
            this.clock = clock;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            timers = DurableTimers.start(context, "alarms-due", TICK, clock, (key, now) -> {
                filed.remove(key);
                context.forward(new Record<>(key, "fired at " + now, now.toEpochMilli()));
                if (key.equals("retry")) {
                    file(key, now.plusSeconds(1));
                }
            });
        }

        @Override
        public void process(Record<String, String> record) {
            file(record.key(), record.value().isEmpty() ? null : Instant.parse(record.value()));
        }

        private void file(String key, Instant next) {
            timers.move(key, filed.get(key), next);
            if (next == null) {
                filed.remove(key);
            } else {
                filed.put(key, next);
            }
        }
    }

    private static final class MovingClock extends Clock {

        private Instant now = T0;

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
