package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.harness.Kcat;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 27 on the secured broker (SASL_SSL, SCRAM-SHA-512, ACLs), with kcat as a platform team runs it: org demo
 * publishes to its own topic and gets its pool; a record it writes for org other is refused as Forbidden and changes
 * nothing of other's; the broker refuses demo's principal on internal topics, on another org's topic, on the shared
 * inbound topic and in the api-service's consumer group; the audit log names the principal of each topic write.
 */
@StackUse.Shares
class SecureKafkaIT {

    static final String ZONE = "US-EAST-08A";
    static final String TYPE = "gb300-4x";
    static final ObjectMapper JSON = new ObjectMapper();

    static Stack stack;
    static Kcat kcat;
    static Api demo;
    static Api other;

    @BeforeAll
    static void setUp() {
        kcat = Kcat.require();
        stack = SystemStack.get();
        demo = SystemStack.api("demo-token");
        other = SystemStack.api("other-token");
        SystemStack.quota("demo", ZONE, TYPE, 8);
        SystemStack.quota("other", ZONE, TYPE, 8);
        SystemStack.fleet(ZONE, TYPE, 16);
    }

    @Test
    void anOrgCreatesAPoolOnItsOwnTopicWithKcatOverSaslSsl() throws IOException {
        String name = "secure-kcat";
        Kcat.Result sent = publishAsDemo("nodepool-requested.demo", "demo/" + name, apply("s-1", "demo", name, 1));

        assertThat(sent.exitCode()).as("kcat said: %s", sent.output()).isZero();
        await().atMost(Duration.ofSeconds(120))
                .untilAsserted(() -> SpineIT.assertHealthy(demo.get(Api.POOLS + "/" + name), 1));
        JsonNode audited = auditedTopicWrite(name);
        assertThat(audited.at("/user/username").asText()).as("audited user").isEqualTo("tenant-demo");
        assertThat(audited.at("/annotations/nodepool.coreweave.com~1org").asText())
                .isEqualTo("demo");
        assertThat(audited.at("/annotations/nodepool.coreweave.com~1cloudevent-source")
                        .asText())
                .isEqualTo("platform-team/kcat");
        assertThat(audited.at("/responseStatus/code").asInt()).isEqualTo(201);
    }

    @Test
    void aRecordForAnotherOrgOnAnOrgsTopicChangesNothingAndIsDeadLetteredForbidden() throws Exception {
        String name = "secure-forged";
        Kcat.Result sent = publishAsDemo("nodepool-requested.demo", "other/" + name, apply("f-1", "other", name, 2));

        assertThat(sent.exitCode()).as("kcat said: %s", sent.output()).isZero();
        try (TopicProbe probe = new TopicProbe(stack.bootstrapServers())) {
            TopicProbe.Read refused = probe.awaitRecord(
                    "nodepool-requested-dlq", r -> ("other/" + name).equals(r.key()), Duration.ofSeconds(60));
            assertThat(refused.header("dlq.error")).isEqualTo("Forbidden");
            assertThat(refused.header("dlq.source.topic")).isEqualTo("nodepool-requested.demo");
            assertThat(refused.header("dlq.reason")).contains("other").contains("demo");
        }
        assertThat(other.get(Api.POOLS + "/" + name).code()).isEqualTo(404);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode audited = auditedTopicWrite(name);
            assertThat(audited.at("/user/username").asText()).as("audited user").isEqualTo("tenant-demo");
            assertThat(audited.at("/responseStatus/code").asInt()).isEqualTo(403);
            assertThat(audited.at("/responseStatus/reason").asText()).isEqualTo("Forbidden");
        });
    }

    @Test
    void theBrokerRefusesATenantPrincipalOnEveryTopicButItsOwn() {
        for (String topic : List.of(
                "quota-limit-set",
                "capacity-checked",
                "nodepool-status",
                "nodepool-request-decided",
                "nodepool-requested",
                "nodepool-requested.other")) {
            Kcat.Result sent = publishAsDemo(topic, "other/x", "{}");
            assertThat(sent.exitCode())
                    .as("kcat writing %s as tenant-demo; it said: %s", topic, sent.output())
                    .isNotZero();
            assertThat(sent.output()).as(topic).containsIgnoringCase("authorization failed");
        }
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(Files.readString(stack.brokerAuthorizerLog()))
                        .as("the broker's authorizer log")
                        // A producer asks for the topic's metadata first: that is where the broker refuses it.
                        .contains("Principal = User:tenant-demo is Denied operation = DESCRIBE from host = 127.0.0.1"
                                + " on resource = Topic:LITERAL:quota-limit-set")
                        .contains("Principal = User:tenant-demo is Denied operation = DESCRIBE from host = 127.0.0.1"
                                + " on resource = Topic:LITERAL:nodepool-requested.other"));
    }

    @Test
    void aTenantPrincipalCannotJoinTheApiServicesConsumerGroup() {
        var config = stack.kafkaClient(
                "tenant-demo",
                Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG, "nodepool-api-service",
                        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of("nodepool-requested.demo"));
            assertThatThrownBy(() -> {
                        for (int i = 0; i < 20; i++) {
                            consumer.poll(Duration.ofMillis(500));
                        }
                    })
                    .isInstanceOf(GroupAuthorizationException.class);
        }
    }

    private static Kcat.Result publishAsDemo(String topic, String key, String value) {
        return kcat.run(
                List.of("-F", stack.kcatConfig("tenant-demo").toString(), "-P", "-t", topic, "-K", "|", "-m", "15"),
                key + "|" + value + "\n");
    }

    /**
     * The api-service's audit event of the topic request that created {@code pool}, from the audit log of whichever
     * instance decided it (a second one joins the shared stack when {@code TwoApiInstancesIT} runs).
     */
    private static JsonNode auditedTopicWrite(String pool) throws IOException {
        List<JsonNode> found = new ArrayList<>();
        List<Path> logs;
        try (Stream<Path> files = Files.list(stack.logs())) {
            logs = files.filter(
                            f -> f.getFileName().toString().matches("audit-" + Service.API.module() + "(-\\d+)?\\.log"))
                    .toList();
        }
        for (Path log : logs) {
            for (String line : Files.readAllLines(log)) {
                JsonNode event = JSON.readTree(line);
                if (event.at("/requestURI").asText().startsWith("kafka:")
                        && pool.equals(event.at("/objectRef/name").asText())) {
                    found.add(event);
                }
            }
        }
        assertThat(found).as("audit events of topic writes of %s", pool).isNotEmpty();
        return found.get(0);
    }

    private static String apply(String id, String org, String name, int target) {
        return ("{\"specversion\":\"1.0\",\"id\":\"" + id + "\",\"source\":\"platform-team/kcat\","
                + "\"type\":\"NodePoolRequested\",\"subject\":\"" + org + "/" + name + "\",\"time\":\""
                + Instant.now() + "\",\"datacontenttype\":\"application/json\",\"data\":{\"operation\":\"APPLY\","
                + "\"nodePool\":{\"apiVersion\":\"compute.coreweave.com/v1alpha1\",\"kind\":\"NodePool\","
                + "\"metadata\":{\"name\":\"" + name + "\"},\"spec\":{\"instanceType\":\"" + TYPE
                + "\",\"targetNodes\":" + target + ",\"region\":\"" + ZONE + "\"}}}}");
    }
}
