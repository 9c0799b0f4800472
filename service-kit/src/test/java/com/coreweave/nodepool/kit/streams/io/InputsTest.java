package com.coreweave.nodepool.kit.streams.io;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Properties;
import java.util.stream.IntStream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reading through the registry inside a topology: good records come out once whichever partition they arrived on (an
 * inbound record not on its key's partition takes the by-key repartition topic), refused ones land in the dead-letter
 * topic with the reason, and the next record is still read. The test driver delivers every record on partition 0, so
 * keys that Java's partitioner puts elsewhere play the records kcat would publish.
 */
class InputsTest {

    private static final int PARTITIONS = 3;
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC);
    private static final String OUT = "read";
    private static final String DLQ = DeadLetters.serviceTopic("test-service");

    private TopologyTestDriver driver;
    private TestInputTopic<String, String> activity;
    private TestOutputTopic<String, String> read;
    private TestOutputTopic<String, String> dead;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        new Inputs(builder, "test-service", PARTITIONS, CLOCK)
                .read(Topics.NODE_ACTIVITY_REPORTED)
                .mapValues(NodeActivityReported::node)
                .to(OUT, Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "inputs-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        activity = driver.createInputTopic(
                Topics.NODE_ACTIVITY_REPORTED.name(),
                Serdes.String().serializer(),
                Serdes.String().serializer());
        read = driver.createOutputTopic(
                OUT, Serdes.String().deserializer(), Serdes.String().deserializer());
        dead = driver.createOutputTopic(
                DLQ, Serdes.String().deserializer(), Serdes.String().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void recordsOnTheirKeysPartitionPassStraightThroughAndOthersAreMovedThereFirst() {
        List<String> pools = IntStream.range(0, 12).mapToObj(i -> "pool-" + i).toList();
        List<String> elsewhere = pools.stream()
                .filter(p -> KeyPartition.of("demo/" + p, PARTITIONS) != 0)
                .toList();
        assertThat(elsewhere)
                .as("some keys Java's partitioner puts on another partition")
                .isNotEmpty()
                .hasSizeLessThan(pools.size());

        pools.forEach(p -> activity.pipeInput("demo/" + p, report(p, "node-" + p)));

        assertThat(read.readKeyValuesToMap())
                .hasSize(pools.size())
                .allSatisfy((key, node) -> assertThat(node).isEqualTo("node-" + key.substring("demo/".length())));
        assertThat(driver.producedTopicNames())
                .contains("inputs-test-" + Topics.NODE_ACTIVITY_REPORTED.name() + "-by-key-repartition");
        assertThat(dead.isEmpty()).isTrue();
    }

    @Test
    void aRefusedRecordGoesToTheDeadLettersOnceWithItsReasonAndTheNextIsRead() {
        activity.pipeInput("demo/pool-1", "{not json");
        activity.pipeInput("demo/pool-2", report("pool-3", "node-1"));
        activity.pipeInput(null, report("pool-4", "node-1"));
        activity.pipeInput("demo/pool-5", report("pool-5", "node-5"));

        var refused = dead.readRecordsToList();
        assertThat(refused)
                .extracting(
                        r -> header(r.headers().lastHeader(DeadLetters.ERROR).value()))
                .containsExactly("MalformedJson", "KeyMismatch", "KeyMissing");
        assertThat(refused).allSatisfy(r -> {
            assertThat(header(r.headers().lastHeader(DeadLetters.SOURCE_TOPIC).value()))
                    .isEqualTo(Topics.NODE_ACTIVITY_REPORTED.name());
            assertThat(header(r.headers().lastHeader(DeadLetters.REASON).value()))
                    .isNotBlank();
        });
        assertThat(refused.getFirst().value()).isEqualTo("{not json");
        assertThat(read.readValuesToList()).containsExactly("node-5");
    }

    private static String report(String pool, String node) {
        return "{\"org\":\"demo\",\"pool\":\"" + pool + "\",\"node\":\"" + node + "\",\"active\":true}";
    }

    private static String header(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
