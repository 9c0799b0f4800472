package com.coreweave.nodepool.kit.kafka;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.microprofile.config.Config;

/**
 * The security settings of every Kafka client a service builds: read once from the {@code kafka.} keys Quarkus uses for
 * all its Kafka clients ({@code kafka.security.protocol}, {@code kafka.sasl.mechanism}, {@code kafka.sasl.jaas.config},
 * {@code kafka.ssl.truststore.location}, ...; as environment variables {@code KAFKA_SECURITY_PROTOCOL}, ...) and handed
 * to {@link RecordPublisher}, {@link TopicFollower}, {@code TopicCreator} and the Kafka Streams clients
 * ({@code PromptCommitClients}).
 *
 * <p>Nothing configured: no settings at all, so every client keeps Kafka's defaults (PLAINTEXT). A protocol over TLS
 * (SSL, SASL_SSL) always carries {@code ssl.endpoint.identification.algorithm}, {@code https} unless configured:
 * Quarkus' Kafka Streams otherwise switches host name verification off.
 */
@Singleton
public class KafkaSecurity {

    /** The prefix Quarkus uses for the settings of all its Kafka clients. */
    public static final String PREFIX = "kafka.";

    static final String PROTOCOL = "security.protocol";
    static final String ENDPOINT_IDENTIFICATION = "ssl.endpoint.identification.algorithm";

    /**
     * The client settings read, without {@link #PREFIX}; also every other {@code kafka.sasl.*} and {@code kafka.ssl.*}.
     */
    static final List<String> KEYS = List.of(
            PROTOCOL,
            "sasl.mechanism",
            "sasl.jaas.config",
            "sasl.client.callback.handler.class",
            "sasl.login.callback.handler.class",
            "sasl.login.class",
            "ssl.protocol",
            "ssl.enabled.protocols",
            "ssl.truststore.location",
            "ssl.truststore.password",
            "ssl.truststore.type",
            "ssl.truststore.certificates",
            "ssl.keystore.location",
            "ssl.keystore.password",
            "ssl.keystore.type",
            "ssl.keystore.key",
            "ssl.keystore.certificate.chain",
            "ssl.key.password",
            ENDPOINT_IDENTIFICATION);

    private final Map<String, Object> properties;

    @Inject
    public KafkaSecurity(Config config) {
        this(read(config));
    }

    private KafkaSecurity(Map<String, String> configured) {
        Map<String, Object> all = new TreeMap<>(configured);
        String protocol = configured.getOrDefault(PROTOCOL, "PLAINTEXT").toUpperCase(Locale.ROOT);
        if (protocol.endsWith("SSL")) {
            all.putIfAbsent(ENDPOINT_IDENTIFICATION, "https");
        }
        this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(all));
    }

    /** Settings given by their client names ({@code security.protocol}, ...): for tests and tools. */
    public static KafkaSecurity of(Map<String, String> settings) {
        return new KafkaSecurity(settings);
    }

    /** No settings: Kafka's defaults, PLAINTEXT. */
    public static KafkaSecurity none() {
        return new KafkaSecurity(Map.of());
    }

    private static Map<String, String> read(Config config) {
        Map<String, String> found = new TreeMap<>();
        for (String key : KEYS) {
            value(config, PREFIX + key).ifPresent(value -> found.put(key, value));
        }
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(PREFIX + "sasl.") || name.startsWith(PREFIX + "ssl.")) {
                String key = name.substring(PREFIX.length());
                value(config, name).ifPresent(value -> found.putIfAbsent(key, value));
            }
        }
        return found;
    }

    /** A value; an empty one (e.g. {@code ${x:}} resolving to nothing) counts as not set. */
    private static Optional<String> value(Config config, String name) {
        return config.getOptionalValue(name, String.class).map(String::trim).filter(value -> !value.isEmpty());
    }

    /** The settings by their client names, to add to a client's configuration; empty when nothing is configured. */
    public Map<String, Object> properties() {
        return properties;
    }

    /** {@code base} with these settings added; they replace what {@code base} says about the same keys. */
    public Map<String, Object> applyTo(Map<String, Object> base) {
        Map<String, Object> config = new LinkedHashMap<>(base);
        config.putAll(properties);
        return config;
    }

    /** The protocol clients speak: {@code security.protocol}, PLAINTEXT unless configured. */
    public String protocol() {
        return (String) properties.getOrDefault(PROTOCOL, "PLAINTEXT");
    }

    /** The settings with secrets (JAAS configuration, passwords, keys) left out, for logs. */
    @Override
    public String toString() {
        Map<String, Object> shown = new TreeMap<>();
        properties.forEach((key, value) -> shown.put(key, secret(key) ? "[hidden]" : value));
        return "KafkaSecurity" + shown;
    }

    private static boolean secret(String key) {
        return key.contains("password") || key.equals("sasl.jaas.config") || key.equals("ssl.keystore.key");
    }
}
