package com.coreweave.nodepool.localkafka;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node KRaft broker inside the test JVM (no Docker): ready in about two seconds, transactions work, so
 * Kafka Streams {@code exactly_once_v2} runs against it. Use {@link #shared()} unless a test needs a broker of its own.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static EmbeddedKafka shared;

    private final KafkaClusterTestKit cluster;
    private final boolean isShared;

    private EmbeddedKafka(KafkaClusterTestKit cluster, boolean isShared) {
        this.cluster = cluster;
        this.isShared = isShared;
    }

    /** Starts a fresh broker in a new temporary directory, deleted again on {@link #close()}. */
    public static EmbeddedKafka start() {
        return new EmbeddedKafka(startCluster(), false);
    }

    /** The one broker of this JVM, started on first use and stopped when the JVM exits. */
    public static synchronized EmbeddedKafka shared() {
        if (shared == null) {
            EmbeddedKafka broker = new EmbeddedKafka(startCluster(), true);
            Runtime.getRuntime().addShutdownHook(new Thread(broker::stop, "embedded-kafka-shutdown"));
            shared = broker;
        }
        return shared;
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Stops this broker and deletes its data; does nothing for the {@link #shared()} one, which others still use. */
    @Override
    public void close() {
        if (!isShared) {
            stop();
        }
    }

    private void stop() {
        try {
            cluster.close();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the embedded Kafka broker failed", e);
        }
    }

    private static KafkaClusterTestKit startCluster() {
        BrokerLogging.quietBroker();
        KafkaClusterTestKit cluster = null;
        try {
            Path dir = Files.createTempDirectory("embedded-kafka-");
            TestKitNodes nodes = new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .setBaseDirectory(dir)
                    .setBootstrapMetadataVersion(MetadataVersion.LATEST_PRODUCTION)
                    .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes).setDeleteOnClose(true);
            BrokerSettings.SINGLE_NODE.forEach(builder::setConfigProp);
            cluster = builder.build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            return cluster;
        } catch (Exception e) {
            if (cluster != null) {
                try {
                    cluster.close();
                } catch (Exception closing) {
                    e.addSuppressed(closing);
                }
            }
            throw new IllegalStateException("starting the embedded Kafka broker failed", e);
        }
    }
}
