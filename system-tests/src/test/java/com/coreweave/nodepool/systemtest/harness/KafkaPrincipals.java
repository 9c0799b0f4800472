package com.coreweave.nodepool.systemtest.harness;

import com.coreweave.nodepool.localkafka.KafkaAccess;
import com.coreweave.nodepool.schema.topics.Topics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The principals of the test stack's secured broker and their random passwords (issue 27): one per service, the
 * operator, monitoring, the super user the harness's own clients use ({@link KafkaAccess#ADMIN}), and one per org that
 * publishes ({@link KafkaAccess#tenant}). Gives each one's Kafka client settings, as Java properties and as a kcat
 * (librdkafka) configuration file.
 */
public final class KafkaPrincipals {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, String> passwords = new LinkedHashMap<>();
    private final Path dir;
    private final Path caCertificate;

    KafkaPrincipals(Path dir, Path caCertificate, Set<String> orgs) {
        this.dir = dir;
        this.caCertificate = caCertificate;
        List<String> principals = new ArrayList<>(Topics.SERVICES);
        principals.addAll(List.of(KafkaAccess.OPERATOR, KafkaAccess.MONITORING, KafkaAccess.ADMIN));
        orgs.forEach(org -> principals.add(KafkaAccess.tenant(org)));
        principals.forEach(principal -> passwords.put(principal, HexFormat.of().formatHex(bytes(16))));
    }

    /** The broker's principals file: {@code <principal>=<password>} a line (LocalKafkaMain's --principals). */
    Path write() {
        Path file = dir.resolve("kafka-principals.properties");
        StringBuilder lines = new StringBuilder();
        passwords.forEach((principal, password) ->
                lines.append(principal).append('=').append(password).append('\n'));
        try {
            Files.createDirectories(dir);
            Files.writeString(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** A Java client's security settings as {@code principal}: SASL_SSL, SCRAM-SHA-512, the stack's CA. */
    public Map<String, Object> client(String principal) {
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("security.protocol", "SASL_SSL");
        client.put("sasl.mechanism", "SCRAM-SHA-512");
        client.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + principal
                        + "\" password=\"" + password(principal) + "\";");
        client.put("ssl.truststore.type", "PEM");
        client.put("ssl.truststore.location", caCertificate.toString());
        client.put("ssl.endpoint.identification.algorithm", "https");
        return client;
    }

    /** {@link #client} as {@code -Dkafka.<key>=<value>} arguments of a service run as {@code principal}. */
    List<String> serviceArguments(String principal) {
        List<String> arguments = new ArrayList<>();
        client(principal).forEach((key, value) -> arguments.add("-Dkafka." + key + "=" + value));
        return arguments;
    }

    /**
     * A kcat configuration file ({@code kcat -F <file>}) of {@code principal} for {@code bootstrapServers}: what any
     * librdkafka client sets ({@code security.protocol}, {@code sasl.mechanisms}, {@code sasl.username},
     * {@code sasl.password}, {@code ssl.ca.location}).
     */
    public Path kcatConfig(String principal, String bootstrapServers) {
        Path file = dir.resolve("kcat-" + principal + ".conf");
        try {
            Files.writeString(
                    file,
                    "bootstrap.servers=" + bootstrapServers + "\n"
                            + "security.protocol=SASL_SSL\n"
                            + "sasl.mechanisms=SCRAM-SHA-512\n"
                            + "sasl.username=" + principal + "\n"
                            + "sasl.password=" + password(principal) + "\n"
                            + "ssl.ca.location=" + caCertificate + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    private String password(String principal) {
        String password = passwords.get(principal);
        if (password == null) {
            throw new IllegalArgumentException("the stack's broker has no principal " + principal + "; it has "
                    + passwords.keySet() + " (Stack.Builder.withOrgs adds orgs)");
        }
        return password;
    }

    private static byte[] bytes(int count) {
        byte[] bytes = new byte[count];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
