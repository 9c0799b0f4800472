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
  void shutsTheClientDownWhenOurOwnCodeFailed() {
    var processing = new StreamsException("Exception caught in process",
        new IllegalStateException("a bug", new NullPointerException()));
    assertThat(recovery.handle(processing)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
  }
}
