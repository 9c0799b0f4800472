package com.coreweave.nodepool.kit.streams.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.kit.kafka.KafkaSecurity;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every client the Streams client supplier builds carries the service's security settings: SASL without a JAAS
 * configuration makes each of them fail at construction, which a plain client built from Streams' own configuration
 * (the bootstrap servers alone here) would not.
 */
class PromptCommitClientsTest {

    private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"nodepool\" password=\"secret\";";

    /** The supplier a service's Streams gets, with these settings. */
    static PromptCommitClients clients(KafkaSecurity security, boolean promptCommits) {
        KafkaSettings settings = (KafkaSettings) Proxy.newProxyInstance(
                KafkaSettings.class.getClassLoader(), new Class<?>[] {KafkaSettings.class}, (proxy, method, args) -> {
                    if (method.getName().equals("promptCommits")) {
                        return promptCommits;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return new PromptCommitClients(settings, new SimpleMeterRegistry(), security);
    }

    private static List<Function<Map<String, Object>, AutoCloseable>> every(PromptCommitClients clients) {
        return List.of(
                clients::getAdmin,
                clients::getProducer,
                clients::getConsumer,
                clients::getRestoreConsumer,
                clients::getGlobalConsumer);
    }

    private static Map<String, Object> streamsConfig() {
        return Map.of("bootstrap.servers", "localhost:1", "client.id", "prompt-commit-clients-test");
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void everyClientCarriesTheSecuritySettings(boolean promptCommits) {
        KafkaSecurity withoutJaas =
                KafkaSecurity.of(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "SCRAM-SHA-512"));
        for (var client : every(clients(withoutJaas, promptCommits))) {
            assertThatThrownBy(() -> client.apply(streamsConfig()))
                    .isInstanceOf(KafkaException.class)
                    .hasStackTraceContaining("JAAS");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void clientsAreBuiltWithAndWithoutSecurity(boolean promptCommits) throws Exception {
        KafkaSecurity scram = KafkaSecurity.of(Map.of(
                "security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", JAAS));
        for (KafkaSecurity security : List.of(KafkaSecurity.none(), scram)) {
            for (var client : every(clients(security, promptCommits))) {
                try (AutoCloseable built = client.apply(streamsConfig())) {
                    assertThat(built).isNotNull();
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void withNothingConfiguredStreamsConfigurationIsUnchanged(boolean promptCommits) {
        Map<String, Object> config = Map.of("bootstrap.servers", "b:9092", "ssl.endpoint.identification.algorithm", "");
        assertThat(clients(KafkaSecurity.none(), promptCommits).secured(config)).isEqualTo(config);
        assertThat(clients(KafkaSecurity.of(Map.of("security.protocol", "SASL_SSL")), promptCommits)
                        .secured(config))
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("ssl.endpoint.identification.algorithm", "https");
    }
}
