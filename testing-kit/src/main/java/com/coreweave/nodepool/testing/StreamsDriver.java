package com.coreweave.nodepool.testing;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.topics.Topic;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A service's topology run without a broker, on a test clock: the service's clock and the driver's wall clock start at
 * the same instant and move together, its stores live in a fresh directory under {@code target}, and its topics are
 * read and written by their names in the events-schema registry ({@link Topic}), keys and values as text.
 */
public final class StreamsDriver implements AutoCloseable {

    /** The service's clock: it stands still until {@link #elapse} moves it together with the driver's wall clock. */
    public static final class TestClock extends Clock {
        private Instant now;

        TestClock(Instant start) {
            this.now = start;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    private final TestClock clock;
    private final TopologyTestDriver driver;
    private final Path stateDir;

    private StreamsDriver(TestClock clock, TopologyTestDriver driver, Path stateDir) {
        this.clock = clock;
        this.driver = driver;
        this.stateDir = stateDir;
    }

    /**
     * Builds the topology with a clock standing at {@code start} and runs it as application {@code applicationId}, the
     * driver's wall clock at the same instant.
     */
    public static StreamsDriver start(String applicationId, Instant start, Function<Clock, Topology> topology) {
        TestClock clock = new TestClock(start);
        Path stateDir = stateDir();
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return new StreamsDriver(clock, new TopologyTestDriver(topology.apply(clock), props, start), stateDir);
    }

    private static Path stateDir() {
        try {
            return Files.createTempDirectory(Files.createDirectories(Path.of("target", "streams-driver")), "state");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a state directory", e);
        }
    }

    /** The clock the topology was built with. */
    public TestClock clock() {
        return clock;
    }

    /** Now, by the service's clock. */
    public Instant now() {
        return clock.now;
    }

    /** Moves the service's clock and the driver's wall clock by {@code duration} at once: due punctuators fire. */
    public void elapse(Duration duration) {
        clock.now = clock.now.plus(duration);
        driver.advanceWallClockTime(duration);
    }

    /** As {@link #elapse(Duration)}, in steps of {@code step}: a punctuator on a shorter period fires each step. */
    public void elapse(Duration duration, Duration step) {
        for (Duration left = duration; left.isPositive(); left = left.minus(step)) {
            elapse(step.compareTo(left) < 0 ? step : left);
        }
    }

    /** Records to {@code topic}, key and value as text. */
    public TestInputTopic<String, String> input(Topic<?, ?> topic) {
        return input(topic.name());
    }

    public TestInputTopic<String, String> input(String topic) {
        return driver.createInputTopic(topic, new StringSerializer(), new StringSerializer());
    }

    /** Records to {@code topic}, the value as bytes (for records no service would write, such as garbage). */
    public TestInputTopic<String, byte[]> bytesInput(Topic<?, ?> topic) {
        return driver.createInputTopic(topic.name(), new StringSerializer(), new ByteArraySerializer());
    }

    /** Pipes {@code value} to {@code topic} as JSON, under {@code key}. */
    public void pipeJson(Topic<?, ?> topic, String key, Object value) {
        input(topic).pipeInput(key, value == null ? null : Json.string(value));
    }

    /** What the topology writes to {@code topic}, key and value as text. */
    public TestOutputTopic<String, String> output(Topic<?, ?> topic) {
        return output(topic.name());
    }

    /** What the topology writes to a topic outside the registry: a store's changelog, a service's dead letters. */
    public TestOutputTopic<String, String> output(String topic) {
        return driver.createOutputTopic(topic, new StringDeserializer(), new StringDeserializer());
    }

    public TestOutputTopic<String, byte[]> bytesOutput(String topic) {
        return driver.createOutputTopic(topic, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /** The values written to {@code topic} since they were last read, decoded as the registry says it is read. */
    public <V> List<V> values(Topic<?, V> topic) {
        return bytesOutput(topic.name()).readValuesToList().stream()
                .map(v -> v == null ? null : topic.valueFormat().decode(v))
                .toList();
    }

    /** A key-value store of the topology, by name. */
    public <K, V> KeyValueStore<K, V> store(String name) {
        return driver.getKeyValueStore(name);
    }

    /** The driver itself, for its stores and for anything this fixture does not say. */
    public TopologyTestDriver driver() {
        return driver;
    }

    @Override
    public void close() {
        driver.close();
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Only a temporary directory under target: left for mvn clean.
        }
    }
}
