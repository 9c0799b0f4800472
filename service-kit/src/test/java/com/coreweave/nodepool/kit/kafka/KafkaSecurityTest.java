package com.coreweave.nodepool.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.coreweave.nodepool.kit.topics.TopicCreator;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaSecurityTest {

    private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"nodepool\" password=\"secret\";";

    private static final Map<String, String> SASL_SSL = Map.of(
            "kafka.security.protocol", "SASL_SSL",
            "kafka.sasl.mechanism", "SCRAM-SHA-512",
            "kafka.sasl.jaas.config", JAAS,
            "kafka.ssl.truststore.location", "/etc/kafka/truststore.p12",
            "kafka.ssl.truststore.password", "changeit",
            "kafka.ssl.truststore.type", "PKCS12");

    private static SmallRyeConfig config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(properties, "test", 100))
                .build();
    }

    private static KafkaSettings settings() {
        return new KafkaSettings() {
            @Override
            public String bootstrapServers() {
                return "broker:9092";
            }

            @Override
            public int partitions() {
                return 3;
            }

            @Override
            public short replicationFactor() {
                return 1;
            }

            @Override
            public Optional<Integer> minInsyncReplicas() {
                return Optional.empty();
            }

            @Override
            public boolean allowUnreplicated() {
                return false;
            }

            @Override
            public List<String> topics() {
                return List.of();
            }

            @Override
            public boolean promptCommits() {
                return true;
            }

            @Override
            public Duration startupTimeout() {
                return Duration.ofSeconds(1);
            }
        };
    }

    @Test
    void nothingConfiguredLeavesEveryClientAsItWas() {
        KafkaSecurity security = new KafkaSecurity(config(Map.of("kafka.bootstrap.servers", "broker:9092")));

        assertThat(security.properties()).isEmpty();
        assertThat(security.protocol()).isEqualTo("PLAINTEXT");
        assertThat(RecordPublisher.producerConfig(settings(), security))
                .containsOnly(
                        entry("bootstrap.servers", "broker:9092"),
                        entry("acks", "all"),
                        entry("enable.idempotence", true),
                        entry("linger.ms", 0),
                        entry("delivery.timeout.ms", 10_000),
                        entry("request.timeout.ms", 5_000),
                        entry("max.block.ms", 5_000));
        assertThat(TopicCreator.adminConfig(settings(), security))
                .containsOnly(entry("bootstrap.servers", "broker:9092"), entry("client.id", "topic-creator"));
        assertThat(TopicFollower.consumerConfig("broker:9092", security, "live-feed"))
                .containsOnly(
                        entry("bootstrap.servers", "broker:9092"),
                        entry("isolation.level", "read_committed"),
                        entry("enable.auto.commit", false),
                        entry("client.id", "live-feed"));
    }

    @Test
    void everyKitClientCarriesTheConfiguredSettings() {
        KafkaSecurity security = new KafkaSecurity(config(SASL_SSL));

        Map<String, Object> expected = Map.of(
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", JAAS,
                "ssl.truststore.location", "/etc/kafka/truststore.p12",
                "ssl.truststore.password", "changeit",
                "ssl.truststore.type", "PKCS12",
                "ssl.endpoint.identification.algorithm", "https");
        assertThat(security.properties()).isEqualTo(expected);
        assertThat(RecordPublisher.producerConfig(settings(), security))
                .containsAllEntriesOf(expected)
                .containsEntry("bootstrap.servers", "broker:9092")
                .containsEntry("acks", "all");
        assertThat(TopicCreator.adminConfig(settings(), security))
                .containsAllEntriesOf(expected)
                .containsEntry("client.id", "topic-creator");
        assertThat(TopicFollower.consumerConfig("broker:9092", security, "request-decisions"))
                .containsAllEntriesOf(expected)
                .containsEntry("isolation.level", "read_committed");
    }

    @Test
    void readsTheEnvironmentFormAndOtherSaslAndSslSettingsButNothingElse() {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withSources(new EnvConfigSource(
                        Map.of("KAFKA_SECURITY_PROTOCOL", "SSL", "KAFKA_SSL_KEYSTORE_LOCATION", "/k.p12"), 300))
                .withSources(new PropertiesConfigSource(
                        Map.of(
                                "kafka.ssl.cipher.suites", "TLS_AES_256_GCM_SHA384",
                                "kafka.ssl.endpoint.identification.algorithm", "",
                                "kafka.bootstrap.servers", "broker:9092",
                                "kafka.acks", "1"),
                        "test",
                        100))
                .build();

        assertThat(new KafkaSecurity(config).properties())
                .containsOnly(
                        entry("security.protocol", "SSL"),
                        entry("ssl.keystore.location", "/k.p12"),
                        entry("ssl.cipher.suites", "TLS_AES_256_GCM_SHA384"),
                        entry("ssl.endpoint.identification.algorithm", "https"));
    }

    @Test
    void configuredHostNameVerificationIsKept() {
        KafkaSecurity security =
                KafkaSecurity.of(Map.of("security.protocol", "SSL", "ssl.endpoint.identification.algorithm", "HTTPS"));
        assertThat(security.properties()).containsEntry("ssl.endpoint.identification.algorithm", "HTTPS");
        assertThat(KafkaSecurity.of(Map.of("security.protocol", "SASL_PLAINTEXT"))
                        .properties())
                .doesNotContainKey("ssl.endpoint.identification.algorithm");
    }

    @Test
    void logsNoSecrets() {
        String shown = new KafkaSecurity(config(SASL_SSL)).toString();
        assertThat(shown).contains("SASL_SSL", "SCRAM-SHA-512").doesNotContain("secret", "changeit");
    }

    @Test
    void aRealClientTakesTheSettings() {
        Map<String, Object> config = new HashMap<>(RecordPublisher.producerConfig(
                settings(),
                KafkaSecurity.of(Map.of(
                        "security.protocol",
                        "SASL_PLAINTEXT",
                        "sasl.mechanism",
                        "SCRAM-SHA-512",
                        "sasl.jaas.config",
                        JAAS))));
        config.put("bootstrap.servers", "localhost:1");
        try (var producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
            assertThat(producer.metrics()).isNotEmpty();
        }
    }

    @Test
    void kafkaStreamsGetsTheSameSettingsFromTheSharedConfiguration() throws IOException {
        URL shared = KafkaSecurity.class.getResource("/META-INF/microprofile-config.properties");
        SmallRyeConfig configured = new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(SASL_SSL, "test", 200))
                .withSources(new PropertiesConfigSource(shared, 100))
                .build();
        assertThat(configured.getOptionalValue("quarkus.kafka-streams.security.protocol", String.class))
                .hasValue("SASL_SSL");
        assertThat(configured.getOptionalValue("quarkus.kafka-streams.sasl.mechanism", String.class))
                .hasValue("SCRAM-SHA-512");
        assertThat(configured.getOptionalValue("quarkus.kafka-streams.sasl.jaas-config", String.class))
                .hasValue(JAAS);
        assertThat(configured.getOptionalValue("quarkus.kafka-streams.ssl.truststore.location", String.class))
                .hasValue("/etc/kafka/truststore.p12");
        assertThat(configured.getOptionalValue(
                        "quarkus.kafka-streams.ssl.endpoint-identification-algorithm", String.class))
                .hasValue("https");

        SmallRyeConfig plain = new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(shared, 100))
                .build();
        assertThat(plain.getOptionalValue("quarkus.kafka-streams.security.protocol", String.class))
                .hasValue("PLAINTEXT");
        assertThat(plain.getOptionalValue("quarkus.kafka-streams.sasl.mechanism", String.class))
                .isEmpty();
        assertThat(plain.getOptionalValue("quarkus.kafka-streams.sasl.jaas-config", String.class))
                .isEmpty();
        assertThat(plain.getOptionalValue("quarkus.kafka-streams.ssl.truststore.location", String.class))
                .isEmpty();
        assertThat(new KafkaSecurity(plain).properties()).isEmpty();
    }
}
