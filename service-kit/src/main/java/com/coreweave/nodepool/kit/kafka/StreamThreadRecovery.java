package com.coreweave.nodepool.kit.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.jboss.logging.Logger;

/**
 * What a service does when its stream thread dies (Quarkus hands this bean to Kafka Streams). A failure of the Kafka
 * client or the broker, such as a transaction a restarted broker no longer accepts ({@code InvalidTxnStateException})
 * or a fenced producer, replaces the thread: its open transaction is aborted, its tasks restore their stores and
 * processing goes on exactly once. So does a failure thrown in Kafka's metrics code, which never sees our data: Kafka
 * Streams 4.1 can throw a NullPointerException there when a stream thread and an interactive query open the first
 * iterators of a store at once (KAFKA-19906; seen in {@code ChaosIT} right after a restart). Anything else is a fault
 * in our code that would fail the same way again, so the client shuts down and readiness says so, as Kafka Streams
 * does by default for everything.
 */
@ApplicationScoped
public class StreamThreadRecovery implements StreamsUncaughtExceptionHandler {

  private static final Logger LOG = Logger.getLogger(StreamThreadRecovery.class);

  @Override
  public StreamThreadExceptionResponse handle(Throwable exception) {
    if (causedByKafka(exception)) {
      LOG.warn("a stream thread failed in the Kafka client or broker; replacing it", exception);
      return StreamThreadExceptionResponse.REPLACE_THREAD;
    }
    LOG.error("a stream thread failed in the service's own code; shutting the Streams client down", exception);
    return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
  }

  /** Whether the innermost cause is Kafka's: Streams wraps whatever failed, its own exceptions included. */
  static boolean causedByKafka(Throwable exception) {
    Throwable root = exception;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root instanceof KafkaException || thrownInKafkaMetrics(root);
  }

  /** Whether the first frame outside the JDK is in Kafka's metrics code. */
  private static boolean thrownInKafkaMetrics(Throwable root) {
    for (StackTraceElement frame : root.getStackTrace()) {
      String type = frame.getClassName();
      if (!type.startsWith("java.") && !type.startsWith("jdk.")) {
        return type.startsWith("org.apache.kafka.common.metrics.")
            || type.startsWith("org.apache.kafka.streams.processor.internals.metrics.")
            || type.startsWith("org.apache.kafka.streams.internals.metrics.");
      }
    }
    return false;
  }
}
