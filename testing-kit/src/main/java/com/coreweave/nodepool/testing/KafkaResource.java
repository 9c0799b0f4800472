package com.coreweave.nodepool.testing;

import com.coreweave.nodepool.localkafka.EmbeddedKafka;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

/**
 * Points a {@code @QuarkusTest} at a real in-process KRaft broker (one per test JVM) and gives every application start
 * a fresh Kafka Streams state directory, so stores never outlive the broker they were built against. The service takes
 * the same Kafka client security settings as the test's own clients ({@link ClientSecurity}).
 */
public class KafkaResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        try {
            String stateDir = Files.createTempDirectory("streams-state").toString();
            Map<String, String> config = new HashMap<>(ClientSecurity.serviceConfig());
            config.put("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
            config.put("kafka-streams.state.dir", stateDir);
            return config;
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a state directory", e);
        }
    }

    @Override
    public void stop() {
        // The shared broker stops when the test JVM exits.
    }

    /** The shared broker's address, for probes in tests. */
    public static String bootstrapServers() {
        return EmbeddedKafka.shared().bootstrapServers();
    }
}
