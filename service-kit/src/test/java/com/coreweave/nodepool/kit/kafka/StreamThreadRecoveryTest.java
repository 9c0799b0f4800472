package com.coreweave.nodepool.kit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class StreamThreadRecoveryTest {

  final StreamThreadRecovery recovery = new StreamThreadRecovery();

  @Test
  void replacesAThreadThatFailedOnACommitTheRestartedBrokerRefused() {
    // As seen after a kill -9 of the broker (./stack chaos): the commit of the open transaction fails.
    var commit = new StreamsException("Error encountered trying to commit a transaction",
        new InvalidTxnStateException("The producer attempted a transactional operation in an invalid state."));
    assertThat(recovery.handle(commit)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    assertThat(recovery.handle(new StreamsException(new ProducerFencedException("fenced"))))
        .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
  }

  @Test
  void replacesAThreadThatFailedInKafkasIteratorMetrics() {
    // As seen in ChaosIT (KAFKA-19906): closing a store iterator of ours, Kafka removes a metric it never registered.
    var npe = new NullPointerException("Cannot invoke \"Object.hashCode()\" because \"key\" is null");
    npe.setStackTrace(new StackTraceElement[] {
        frame("java.util.concurrent.ConcurrentHashMap", "replaceNode"),
        frame("org.apache.kafka.common.metrics.Metrics", "removeMetric"),
        frame("org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl", "removeMetric"),
        frame("org.apache.kafka.streams.internals.metrics.OpenIterators", "remove"),
        frame("com.coreweave.nodepool.capacity.streams.StoredLedgers", "scan")});
    assertThat(recovery.handle(new StreamsException("Exception caught in process", npe)))
        .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
  }

  @Test
  void shutsTheClientDownWhenOurOwnCodeFailedEvenInsideKafkaCode() {
    // Our bug surfacing in a Kafka frame that takes our data (here a serializer call) would fail again.
    var npe = new NullPointerException();
    npe.setStackTrace(new StackTraceElement[] {
        frame("java.util.Objects", "requireNonNull"),
        frame("org.apache.kafka.streams.processor.internals.RecordCollectorImpl", "send"),
        frame("com.coreweave.nodepool.kit.streams.Outbound", "route")});
    assertThat(recovery.handle(new StreamsException(npe))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
  }

  private static StackTraceElement frame(String type, String method) {
    return new StackTraceElement(type, method, null, -1);
  }

  @Test
  void shutsTheClientDownWhenOurOwnCodeFailed() {
    var processing = new StreamsException("Exception caught in process",
        new IllegalStateException("a bug", new NullPointerException()));
    assertThat(recovery.handle(processing)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
  }
}
