package com.coreweave.nodepool.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ClientSecurityTest {

    @Test
    void nothingSetAddsNothing() {
        assertThat(ClientSecurity.properties(Map.of("kafka.bootstrap.servers", "b:9092"), Map.of("KAFKA_ACKS", "1")))
                .isEmpty();
        assertThat(ClientSecurity.client("b:9092", Map.of("acks", "all")))
                .containsOnly(entry("bootstrap.servers", "b:9092"), entry("acks", "all"));
    }

    @Test
    void eachRunningStacksBrokerHasItsOwnSettings() {
        ClientSecurity.use("one:9092", Map.of("security.protocol", "SASL_SSL", "sasl.jaas.config", "one"));
        ClientSecurity.use("two:9092", Map.of("security.protocol", "SASL_SSL", "sasl.jaas.config", "two"));
        try {
            assertThat(ClientSecurity.client("one:9092")).containsEntry("sasl.jaas.config", "one");
            assertThat(ClientSecurity.client("two:9092")).containsEntry("sasl.jaas.config", "two");
            assertThat(ClientSecurity.client("other:9092")).containsOnlyKeys("bootstrap.servers");
            assertThat(ClientSecurity.serviceArguments("two:9092")).contains("-Dkafka.sasl.jaas.config=two");

            ClientSecurity.clear("one:9092");

            assertThat(ClientSecurity.client("one:9092")).containsOnlyKeys("bootstrap.servers");
            assertThat(ClientSecurity.client("two:9092")).containsEntry("sasl.jaas.config", "two");
        } finally {
            ClientSecurity.clear("one:9092");
            ClientSecurity.clear("two:9092");
        }
    }

    @Test
    void systemPropertiesOverTheEnvironment() {
        assertThat(ClientSecurity.properties(
                        Map.of(
                                "kafka.security.protocol", "SASL_SSL",
                                "kafka.sasl.jaas.config", "jaas",
                                "kafka.ssl.truststore.location", "/t.p12",
                                "kafka.bootstrap.servers", "b:9092",
                                "java.version", "25"),
                        Map.of(
                                "KAFKA_SECURITY_PROTOCOL", "SSL",
                                "KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                                "KAFKA_BOOTSTRAP_SERVERS", "b:9092",
                                "HOME", "/root")))
                .containsOnly(
                        entry("security.protocol", "SASL_SSL"),
                        entry("sasl.mechanism", "SCRAM-SHA-512"),
                        entry("sasl.jaas.config", "jaas"),
                        entry("ssl.truststore.location", "/t.p12"),
                        entry("ssl.endpoint.identification.algorithm", "https"));
    }

    @Test
    void everyFormCarriesTheSettings() {
        String key = "kafka.security.protocol";
        String before = System.getProperty(key);
        System.setProperty(key, "SASL_PLAINTEXT");
        try {
            assertThat(ClientSecurity.client("b:9092"))
                    .containsEntry("bootstrap.servers", "b:9092")
                    .containsEntry("security.protocol", "SASL_PLAINTEXT");
            Properties streams = new Properties();
            streams.put("application.id", "a");
            assertThat(ClientSecurity.streams(streams))
                    .containsEntry("application.id", "a")
                    .containsEntry("security.protocol", "SASL_PLAINTEXT");
            assertThat(ClientSecurity.serviceConfig()).containsEntry(key, "SASL_PLAINTEXT");
            assertThat(ClientSecurity.serviceArguments()).contains("-Dkafka.security.protocol=SASL_PLAINTEXT");
        } finally {
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }
}
