package com.coreweave.nodepool.kit.streams.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.coreweave.nodepool.localkafka.KafkaAccess;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The topic half of issue 37's "Shape": every topic of the registry a party outside the services may write, and each
 * org's own topic of those platform teams write, has record checks, a dead-letter topic with reasons, an audit trail,
 * the broker's timestamps and a byte bound, and its writers' client quotas. A new inbound topic of the registry is
 * enumerated here with no change to this test, so it cannot skip any of them.
 */
class InboundTopicsShapeTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);

    /** Every topic a party outside the services writes: platform teams, monitoring, operators. */
    static Stream<Topic<?, ?>> inbound() {
        return Topics.all().stream().filter(Topic::anyPartition);
    }

    @Test
    void theInboundTopicsAreThoseOutsidePartiesWriteAndEveryOnePlatformTeamsWriteHasOrgTopics() {
        assertThat(inbound().map(Topic::name))
                .as("a topic the registry names an outside writer of is read from any partition")
                .containsExactlyInAnyOrderElementsOf(Topics.all().stream()
                        .filter(t -> Stream.of("platform teams", "monitoring", "operators")
                                .anyMatch(t.owner()::contains))
                        .map(Topic::name)
                        .toList());
        assertThat(TenantTopics.INBOUND)
                .as("the topics platform teams write, each with a topic of each org's own")
                .containsExactlyInAnyOrderElementsOf(inbound()
                        .filter(t -> t.owner().contains("platform teams"))
                        .toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inbound")
    void everyInboundTopicChecksItsRecordsAndKeepsThemWithinKafkasRecordBound(Topic<?, ?> topic) {
        Rejection notJson = catchThrowableOfType(
                Rejection.class, () -> topic.read(key(topic), "not json".getBytes(StandardCharsets.UTF_8)));
        Rejection empty = catchThrowableOfType(
                Rejection.class, () -> topic.read(key(topic), "{}".getBytes(StandardCharsets.UTF_8)));

        assertThat(notJson).as("a value that is not JSON").isNotNull();
        assertThat(empty).as("a JSON value with nothing the record needs").isNotNull();
        assertThat(topic.brokerConfig()).doesNotContainKey("max.message.bytes");
        assertThat(Limits.MAX_RECORD_BYTES).isEqualTo(1024 * 1024);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inbound")
    void everyInboundTopicIsStampedByTheBrokerAndBoundedInBytes(Topic<?, ?> topic) {
        assertThat(topic.brokerConfig()).containsEntry("message.timestamp.type", "LogAppendTime");
        if (!topic.compacted()) {
            assertThat(topic.brokerConfig()).containsKey("retention.bytes");
        }
        if (TenantTopics.INBOUND.contains(topic)) {
            Map<String, String> org = TenantTopics.brokerConfig(topic);
            assertThat(org).containsEntry("message.timestamp.type", "LogAppendTime");
            assertThat(Long.parseLong(org.get("segment.bytes")))
                    .as("the broker deletes whole segments: several fit in the byte bound")
                    .isLessThan(Long.parseLong(org.get("retention.bytes")) / 2);
        }
    }

    @Test
    void everyOrgsPrincipalWritesOnlyItsOrgTopicsAndHasEveryClientQuota() {
        List<String> written = KafkaAccess.forPrincipal(KafkaAccess.tenant("demo")).stream()
                .filter(acl -> acl.entry().operation() == AclOperation.WRITE)
                .map(acl -> acl.pattern().name())
                .toList();

        assertThat(written)
                .containsExactlyInAnyOrderElementsOf(TenantTopics.INBOUND.stream()
                        .map(t -> TenantTopics.of(t, "demo"))
                        .toList());
        assertThat(KafkaAccess.TENANT_QUOTAS)
                .containsOnlyKeys("producer_byte_rate", "consumer_byte_rate", "request_percentage")
                .allSatisfy((name, value) -> assertThat(value).as(name).isPositive());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inbound")
    void aBadRecordOfEveryInboundTopicIsDeadLetteredWithItsReasonAndAudited(Topic<?, ?> topic) {
        List<String> sources = new ArrayList<>(List.of(topic.name()));
        if (TenantTopics.INBOUND.contains(topic)) {
            sources.add(TenantTopics.of(topic, "demo"));
        }
        StreamsBuilder builder = new StreamsBuilder();
        new Inputs(builder, "shape-test", 3, CLOCK).read(topic, Interpretation.asIs(), "shape-test-dlq");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "shape-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
            var dead = driver.createOutputTopic(
                    "shape-test-dlq",
                    Serdes.String().deserializer(),
                    Serdes.String().deserializer());
            var audits = driver.createOutputTopic(
                    Topics.AUDIT_EVENTS.name(),
                    Serdes.String().deserializer(),
                    Serdes.String().deserializer());
            for (String source : sources) {
                driver.createInputTopic(
                                source,
                                Serdes.String().serializer(),
                                Serdes.String().serializer())
                        .pipeInput(key(topic), "not json");

                assertThat(dead.readRecordsToList()).as(source).singleElement().satisfies(r -> {
                    assertThat(r.headers().lastHeader(DeadLetters.REASON)).isNotNull();
                    assertThat(r.headers().lastHeader(DeadLetters.ERROR)).isNotNull();
                });
                assertThat(audits.readValuesToList()).as(source).singleElement().satisfies(v -> {
                    var event = Json.mapper().readTree(v);
                    assertThat(event.at("/responseStatus/code").asInt()).isEqualTo(400);
                    assertThat(event.at("/requestURI").asText()).startsWith("kafka:" + source + "/");
                    if (!source.equals(topic.name())) {
                        assertThat(event.at("/user/username").asText()).isEqualTo("tenant-demo");
                    }
                });
            }
        }
    }

    /** A key of the topic's form, of org demo. */
    private static String key(Topic<?, ?> topic) {
        return topic == Topics.QUOTA_LIMIT_SET ? "demo/US-EAST-04A/gd-8xa100-i128" : "demo/p1";
    }
}
