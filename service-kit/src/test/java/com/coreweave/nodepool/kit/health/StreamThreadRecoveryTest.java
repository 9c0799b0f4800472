package com.coreweave.nodepool.kit.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class StreamThreadRecoveryTest {

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final MovableClock clock = new MovableClock();
    final StreamThreadRecovery recovery =
            new StreamThreadRecovery(new ReplaceLoop(5, Duration.ofMinutes(5)), registry, clock);

    @Test
    void replacesAThreadThatFailedOnACommitTheRestartedBrokerRefused() {
        // As seen after a kill -9 of the broker (./stack chaos): the commit of the open transaction fails.
        var commit = new StreamsException(
                "Error encountered trying to commit a transaction",
                new InvalidTxnStateException("The producer attempted a transactional operation in an invalid state."));
        assertThat(recovery.handle(commit)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(recovery.handle(new StreamsException(new ProducerFencedException("fenced"))))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void replacesAThreadThatFailedInKafkasIteratorMetrics() {
        // As seen in ChaosIT (KAFKA-19906): closing a store iterator of ours, Kafka removes a metric it never
        // registered.
        var npe = new NullPointerException("Cannot invoke \"Object.hashCode()\" because \"key\" is null");
        npe.setStackTrace(new StackTraceElement[] {
            frame("java.util.concurrent.ConcurrentHashMap", "replaceNode"),
            frame("org.apache.kafka.common.metrics.Metrics", "removeMetric"),
            frame("org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl", "removeMetric"),
            frame("org.apache.kafka.streams.internals.metrics.OpenIterators", "remove"),
            frame("com.coreweave.nodepool.capacity.streams.StoredLedgers", "scan")
        });
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
            frame("com.coreweave.nodepool.kit.streams.io.Outbound", "route")
        });
        assertThat(recovery.handle(new StreamsException(npe))).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    private static StackTraceElement frame(String type, String method) {
        return new StackTraceElement(type, method, null, -1);
    }

    @Test
    void countsReplacementsAndCallsMoreThanFiveWithinFiveMinutesALoopUntilTheyAgeOut() {
        // Issue 25: a record the provisioner could not write failed each new thread the same way, 274 times in 3
        // minutes.
        var tooLarge =
                new StreamsException(new RecordTooLargeException("The message is 1992294 bytes when serialized"));
        for (int i = 0; i < 5; i++) {
            recovery.handle(tooLarge);
            clock.move(Duration.ofSeconds(10));
        }
        assertThat(recovery.replaceLoop().looping(clock.instant()))
                .as("5 within the window")
                .isFalse();
        assertThat(recovery.handle(tooLarge)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(recovery.replaceLoop().looping(clock.instant()))
                .as("the 6th")
                .isTrue();
        assertThat(registry.get("nodepool.stream.thread.replacements").counter().count())
                .isEqualTo(6);

        clock.move(Duration.ofMinutes(5).minusSeconds(30));
        assertThat(recovery.replaceLoop().looping(clock.instant()))
                .as("after the first ages out")
                .isFalse();
        assertThat(recovery.replaceLoop().recent(clock.instant())).isEqualTo(3);
    }

    @Test
    void doesNotCountAShutdownAsAReplacement() {
        recovery.handle(new StreamsException(new IllegalStateException("a bug")));
        assertThat(registry.get("nodepool.stream.thread.replacements").counter().count())
                .isZero();
    }

    @Test
    void shutsTheClientDownWhenOurOwnCodeFailed() {
        var processing = new StreamsException(
                "Exception caught in process", new IllegalStateException("a bug", new NullPointerException()));
        assertThat(recovery.handle(processing)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }

    /** A clock the test moves. */
    static final class MovableClock extends Clock {
        private Instant now = Instant.parse("2026-11-27T10:00:00Z");

        void move(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
