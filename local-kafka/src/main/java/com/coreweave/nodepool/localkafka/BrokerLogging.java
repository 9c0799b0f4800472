package com.coreweave.nodepool.localkafka;

import java.util.List;
import java.util.logging.Level;
import org.jboss.logmanager.LogContext;

/** Keeps the broker's INFO chatter (hundreds of config lines per start) out of the logs: only warnings and errors. */
final class BrokerLogging {

    private static final List<String> BROKER_CATEGORIES = List.of(
            "kafka",
            "state.change.logger",
            "org.apache.kafka.common.test",
            "org.apache.kafka.controller",
            "org.apache.kafka.coordinator",
            "org.apache.kafka.image",
            "org.apache.kafka.metadata",
            "org.apache.kafka.queue",
            "org.apache.kafka.raft",
            "org.apache.kafka.server",
            "org.apache.kafka.snapshot",
            "org.apache.kafka.storage");

    private BrokerLogging() {}

    /** For a JVM shared with clients under test: quiets the broker's categories, leaves the clients' ones alone. */
    static void quietBroker() {
        BROKER_CATEGORIES.forEach(BrokerLogging::warningsOnly);
    }

    /** For a JVM that runs only the broker: quiets all of Kafka, including the config dumps of its inner clients. */
    static void quietAllKafka() {
        List.of("kafka", "state.change.logger", "org.apache.kafka").forEach(BrokerLogging::warningsOnly);
    }

    private static void warningsOnly(String category) {
        LogContext.getLogContext().getLogger(category).setLevel(Level.WARNING);
    }
}
