package com.coreweave.nodepool.kit.streams.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.kit.audit.RefusalTally;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.TenantTopics;
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
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reading through the registry inside a topology: good records come out once whichever partition they arrived on (an
 * inbound record not on its key's partition takes the by-key repartition topic), refused ones land in the dead-letter
 * topic with the reason, and the next record is still read. An org's own topic is read with the shared one, only for
 * its org's keys, and its records reach the interpretation with their origin. The test driver delivers every record on
 * partition 0, so keys that Java's partitioner puts elsewhere play the records kcat would publish.
 */
class InputsTest {

    private static final int PARTITIONS = 3;
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC);
    private static final String OUT = "read";
    private static final String DLQ = DeadLetters.serviceTopic("test-service");

    private static final String BY_KEY = "inputs-test-" + Topics.NODE_ACTIVITY_REPORTED.name() + "-by-key-repartition";

    private TopologyTestDriver driver;
    private TestInputTopic<String, String> activity;
    private TestInputTopic<String, String> demoActivity;
    private TestOutputTopic<String, String> read;
    private TestOutputTopic<String, String> dead;
    private TestOutputTopic<String, String> audits;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        // Each node read comes out as <node>@<origin>: the org whose own topic it came from, or "shared".
        new Inputs(builder, "test-service", PARTITIONS, CLOCK)
                .read(
                        Topics.NODE_ACTIVITY_REPORTED,
                        (key, report, raw, origin) ->
                                report.node() + "@" + (origin.fromTenantTopic() ? origin.tenantOrg() : "shared"),
                        DLQ)
                .to(OUT, Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "inputs-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        activity = driver.createInputTopic(
                Topics.NODE_ACTIVITY_REPORTED.name(),
                Serdes.String().serializer(),
                Serdes.String().serializer());
        demoActivity = driver.createInputTopic(
                TenantTopics.of(Topics.NODE_ACTIVITY_REPORTED, "demo"),
                Serdes.String().serializer(),
                Serdes.String().serializer());
        read = driver.createOutputTopic(
                OUT, Serdes.String().deserializer(), Serdes.String().deserializer());
        dead = driver.createOutputTopic(
                DLQ, Serdes.String().deserializer(), Serdes.String().deserializer());
        audits = driver.createOutputTopic(
                Topics.AUDIT_EVENTS.name(),
                Serdes.String().deserializer(),
                Serdes.String().deserializer());
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
                .allSatisfy((key, node) ->
                        assertThat(node).isEqualTo("node-" + key.substring("demo/".length()) + "@shared"));
        assertThat(driver.producedTopicNames()).contains(BY_KEY);
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
        assertThat(read.readValuesToList()).containsExactly("node-5@shared");
    }

    @Test
    void anOrgsOwnTopicIsReadForItsOrgThroughTheByKeyTopicWithItsOrigin() {
        String key = keyOnPartition(0);

        demoActivity.pipeInput(key, report(key.substring("demo/".length()), "node-1"));

        assertThat(read.readRecordsToList()).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo(key);
            assertThat(r.value()).isEqualTo("node-1@demo");
            assertThat(r.headers().lastHeader(RecordParse.TENANT_ORG))
                    .as("the origin header stays inside Inputs")
                    .isNull();
        });
        assertThat(driver.producedTopicNames())
                .as("moved by key although already on its key's partition number: an org topic's say nothing")
                .contains(BY_KEY);
        assertThat(dead.isEmpty()).isTrue();
        assertThat(audits.readRecordsToList())
                .as("audited once, where it was written, as the org's principal's write")
                .singleElement()
                .satisfies(r -> {
                    var event = Json.mapper().readTree(r.value());
                    assertThat(r.key()).isEqualTo("demo");
                    assertThat(event.at("/user/username").asText()).isEqualTo("tenant-demo");
                    assertThat(event.at("/requestURI").asText()).isEqualTo("kafka:node-activity-reported.demo/0/0");
                    assertThat(event.at("/objectRef/resource").asText()).isEqualTo("node-activity-reported");
                    assertThat(event.at("/responseStatus/code").asInt()).isEqualTo(202);
                });
    }

    @Test
    void anOrgsTopicRecordForAnotherOrgIsRefusedAsForbiddenAndNothingIsRead() {
        String other = "{\"org\":\"other\",\"pool\":\"p\",\"node\":\"node-1\",\"active\":true}";

        demoActivity.pipeInput("other/p", other);
        demoActivity.pipeInput("not-a-pool-key", report("p", "node-2"));

        var refused = dead.readRecordsToList();
        assertThat(refused)
                .extracting(
                        r -> header(r.headers().lastHeader(DeadLetters.ERROR).value()))
                .as("a key that does not parse keeps its own code")
                .containsExactly("Forbidden", "InvalidKey");
        assertThat(header(refused.getFirst()
                        .headers()
                        .lastHeader(DeadLetters.REASON)
                        .value()))
                .isEqualTo("a record for org other on org demo's topic node-activity-reported.demo");
        assertThat(header(refused.getFirst()
                        .headers()
                        .lastHeader(DeadLetters.SOURCE_TOPIC)
                        .value()))
                .isEqualTo("node-activity-reported.demo");
        assertThat(refused.getFirst().value()).isEqualTo(other);
        assertThat(read.isEmpty()).isTrue();
        assertThat(driver.producedTopicNames()).doesNotContain(BY_KEY);
        assertThat(audits.readValuesToList())
                .extracting(v -> Json.mapper().readTree(v))
                .extracting(
                        e -> e.at("/user/username").asText(),
                        e -> e.at("/responseStatus/code").asInt(),
                        e -> e.at("/responseStatus/reason").asText())
                .containsExactly(tuple("tenant-demo", 403, "Forbidden"), tuple("tenant-demo", 400, "InvalidKey"));
    }

    @Test
    void aFloodOfRefusedRecordsIsAuditedOnceAndThenSummarizedPerPrincipalAndReason() {
        for (int i = 0; i < 500; i++) {
            demoActivity.pipeInput("demo/p-" + i, "{not json " + "x".repeat(10_000));
        }
        assertThat(dead.readRecordsToList()).hasSize(500);
        assertThat(audits.readValuesToList()).as("the first, whole").hasSize(1);

        driver.advanceWallClockTime(RefusalTally.INTERVAL);

        assertThat(audits.readValuesToList()).singleElement().satisfies(v -> {
            var summary = Json.mapper().readTree(v);
            assertThat(summary.at("/user/username").asText()).isEqualTo("tenant-demo");
            assertThat(summary.at("/responseStatus/reason").asText()).isEqualTo("MalformedJson");
            assertThat(summary.at("/annotations/nodepool.coreweave.com~1summarized-refusals")
                            .asInt())
                    .isEqualTo(499);
            assertThat(v.length()).isLessThan(4096);
        });
    }

    @Test
    void aSharedTopicsRecordIsAuditedUnlessARestCallWroteItAndAWritersDeadLetterHeadersAreDropped() {
        String key = keyOnPartition(0);
        var headers = StreamsInternals.headers().add(DeadLetters.ERROR, "Forged".getBytes(StandardCharsets.UTF_8));
        activity.pipeInput(new TestRecord<>(key, "{not json", headers));
        activity.pipeInput(new TestRecord<>(
                key,
                report(key.substring("demo/".length()), "node-1"),
                StreamsInternals.headers().add(RecordPublisher.AUDITED_BY_HTTP, new byte[] {'1'})));
        activity.pipeInput(key, report(key.substring("demo/".length()), "node-2"));

        assertThat(dead.readRecordsToList())
                .singleElement()
                .satisfies(r -> assertThat(r.headers().headers(DeadLetters.ERROR))
                        .extracting(h -> header(h.value()))
                        .containsExactly("MalformedJson"));
        assertThat(audits.readValuesToList())
                .extracting(v -> Json.mapper().readTree(v))
                .extracting(
                        e -> e.at("/responseStatus/code").asInt(),
                        e -> e.at("/user/username").asText())
                .containsExactly(tuple(400, "system:kafka-client"), tuple(202, "system:kafka-client"));
    }

    @Test
    void anOriginHeaderFromTheWireIsDroppedOnTheSharedTopic() {
        for (String key : List.of(keyOnPartition(0), keyOnPartition(1))) {
            TestRecord<String, String> spoofed = new TestRecord<>(
                    key,
                    report(key.substring("demo/".length()), "node-1"),
                    StreamsInternals.headers().add(RecordParse.TENANT_ORG, "demo".getBytes(StandardCharsets.UTF_8)));
            activity.pipeInput(spoofed);
        }

        assertThat(read.readRecordsToList())
                .as("on its key's partition and moved by key alike")
                .hasSize(2)
                .allSatisfy(r -> {
                    assertThat(r.value()).endsWith("@shared");
                    assertThat(r.headers().lastHeader(RecordParse.TENANT_ORG)).isNull();
                });
    }

    /** A key of org demo that Java's partitioner puts on {@code partition}. */
    private static String keyOnPartition(int partition) {
        return IntStream.range(0, 100)
                .mapToObj(i -> "demo/pool-" + i)
                .filter(k -> KeyPartition.of(k, PARTITIONS) == partition)
                .findFirst()
                .orElseThrow();
    }

    private static String report(String pool, String node) {
        return "{\"org\":\"demo\",\"pool\":\"" + pool + "\",\"node\":\"" + node + "\",\"active\":true}";
    }

    private static String header(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
