package com.coreweave.nodepool.localkafka;

import java.io.FileNotFoundException;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jboss.logmanager.LogContext;
import org.jboss.logmanager.formatters.PatternFormatter;
import org.jboss.logmanager.handlers.FileHandler;

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

    /**
     * Writes what the authorizer refused (Kafka's {@code kafka.authorizer.logger} at INFO: principal, operation, host,
     * resource) to {@code file}, one line each: the broker's half of the audit trail. Allowed requests stay unlogged.
     */
    static void auditDenials(Path file) {
        FileHandler handler;
        try {
            handler = new FileHandler(file.toFile(), true);
        } catch (FileNotFoundException e) {
            throw new IllegalArgumentException("cannot write the authorizer log " + file + ": " + e.getMessage(), e);
        }
        handler.setFormatter(new PatternFormatter("%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %s%n"));
        handler.setAutoFlush(true);
        Logger denials = LogContext.getLogContext().getLogger("kafka.authorizer.logger");
        denials.setLevel(Level.INFO);
        denials.setUseParentHandlers(false);
        denials.addHandler(handler);
    }

    private static void warningsOnly(String category) {
        LogContext.getLogContext().getLogger(category).setLevel(Level.WARNING);
    }
}
