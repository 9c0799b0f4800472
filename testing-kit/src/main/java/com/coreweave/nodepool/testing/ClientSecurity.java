package com.coreweave.nodepool.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The security settings of every Kafka client the tests, the harness, the benchmarks and chaos build, from one place:
 * the system properties {@code kafka.security.protocol}, {@code kafka.sasl.*}, {@code kafka.ssl.*} (e.g.
 * {@code -Dkafka.security.protocol=SASL_SSL}), else the environment ({@code KAFKA_SECURITY_PROTOCOL},
 * {@code KAFKA_SASL_JAAS_CONFIG}, ...): the same keys the services read (service-kit {@code KafkaSecurity}), so one
 * switch sets both. Nothing set: no settings, PLAINTEXT. A protocol over TLS always carries
 * {@code ssl.endpoint.identification.algorithm}, {@code https} unless set, as in the services.
 */
public final class ClientSecurity {

    /** The prefix of the settings, as Quarkus names them for all its Kafka clients. */
    public static final String PREFIX = "kafka.";

    private static final String ENV_PREFIX = "KAFKA_";
    private static final String PROTOCOL = "security.protocol";
    private static final String ENDPOINT_IDENTIFICATION = "ssl.endpoint.identification.algorithm";

    /**
     * Settings running test stacks give this process's clients of their brokers, by bootstrap servers ({@link #use}):
     * several stacks, each with its own broker and passwords, may run in one test JVM.
     */
    private static final Map<String, Map<String, Object>> BY_BROKER = new ConcurrentHashMap<>();

    private ClientSecurity() {}

    /**
     * Makes {@code settings} (client names: {@code security.protocol}, ...) the settings of this process's clients of
     * the broker at {@code bootstrapServers} until {@link #clear}: a test stack whose broker is secured sets the
     * credentials of its super user here.
     */
    public static void use(String bootstrapServers, Map<String, Object> settings) {
        BY_BROKER.put(bootstrapServers, Map.copyOf(settings));
    }

    /** Clients of that broker are back to the settings of the system properties and the environment. */
    public static void clear(String bootstrapServers) {
        BY_BROKER.remove(bootstrapServers);
    }

    /**
     * The settings by their client names ({@code security.protocol}, ...) from the system properties and the
     * environment; empty when nothing is set.
     */
    public static Map<String, Object> properties() {
        return properties(systemProperties(), System.getenv());
    }

    /**
     * The settings of a client of the broker at {@code bootstrapServers}: a running stack's, else
     * {@link #properties()}.
     */
    public static Map<String, Object> properties(String bootstrapServers) {
        Map<String, Object> settings = BY_BROKER.get(bootstrapServers);
        return settings != null ? settings : properties();
    }

    static Map<String, Object> properties(Map<String, String> system, Map<String, String> environment) {
        Map<String, String> found = new TreeMap<>();
        environment.forEach((name, value) -> {
            String key = name.toLowerCase(Locale.ROOT).replace('_', '.');
            if (name.startsWith(ENV_PREFIX) && security(key.substring(PREFIX.length()))) {
                found.put(key.substring(PREFIX.length()), value);
            }
        });
        system.forEach((name, value) -> {
            if (name.startsWith(PREFIX) && security(name.substring(PREFIX.length()))) {
                found.put(name.substring(PREFIX.length()), value);
            }
        });
        found.values().removeIf(value -> value == null || value.isBlank());
        String protocol = found.getOrDefault(PROTOCOL, "PLAINTEXT").toUpperCase(Locale.ROOT);
        if (protocol.endsWith("SSL")) {
            found.putIfAbsent(ENDPOINT_IDENTIFICATION, "https");
        }
        return Map.copyOf(found);
    }

    private static boolean security(String key) {
        return key.equals(PROTOCOL) || key.startsWith("sasl.") || key.startsWith("ssl.");
    }

    private static Map<String, String> systemProperties() {
        Map<String, String> system = new TreeMap<>();
        Properties properties = System.getProperties();
        for (String name : properties.stringPropertyNames()) {
            system.put(name, properties.getProperty(name));
        }
        return system;
    }

    /** A client's configuration: the brokers, {@code config}, and the security settings over them. */
    public static Map<String, Object> client(String bootstrapServers, Map<String, Object> config) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("bootstrap.servers", bootstrapServers);
        all.putAll(config);
        all.putAll(properties(bootstrapServers));
        return all;
    }

    /** A client's configuration of the brokers and the security settings alone (e.g. an admin client). */
    public static Map<String, Object> client(String bootstrapServers) {
        return client(bootstrapServers, Map.of());
    }

    /** {@code streams} (a Kafka Streams configuration) with the security settings added, for all its clients. */
    public static Properties streams(Properties streams) {
        Properties all = new Properties();
        all.putAll(streams);
        all.putAll(properties());
        return all;
    }

    /**
     * The settings as Quarkus configuration ({@code kafka.security.protocol=...}), for a service under test: a
     * {@code @QuarkusTest} resource or {@code -D} arguments of a service started as a child process.
     */
    public static Map<String, String> serviceConfig() {
        Map<String, String> config = new TreeMap<>();
        properties().forEach((key, value) -> config.put(PREFIX + key, String.valueOf(value)));
        return config;
    }

    /**
     * The settings of a client of the broker at {@code bootstrapServers} as {@code -Dkafka.<key>=<value>} arguments.
     */
    public static List<String> serviceArguments(String bootstrapServers) {
        List<String> arguments = new ArrayList<>();
        properties(bootstrapServers).forEach((key, value) -> arguments.add("-D" + PREFIX + key + "=" + value));
        return arguments;
    }

    /** {@link #serviceConfig()} as {@code -Dkey=value} arguments of a child JVM. */
    public static List<String> serviceArguments() {
        List<String> arguments = new ArrayList<>();
        serviceConfig().forEach((key, value) -> arguments.add("-D" + key + "=" + value));
        return arguments;
    }
}
