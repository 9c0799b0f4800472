package com.coreweave.nodepool.kit.health;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
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
 * in our code that would fail the same way again, so the client shuts down and readiness says so, as Kafka Streams does
 * by default for everything. (A processor's exception for one record no longer gets here: it is dead-lettered,
 * {@code ProcessingDeadLetters}; what is left is our code outside processors, e.g. a store's commit hook.)
 *
 * <p>A replaced thread that fails again the same way, e.g. on a record it cannot write and may not skip, is replaced
 * again and again. So replacements are counted ({@code nodepool_stream_thread_replacements_total}), and more than
 * {@code nodepool.health.replace-loop.replacements} within {@code nodepool.health.replace-loop.window} are a replace
 * loop, which takes the instance out of readiness ({@link StreamsReadiness}).
 */
@Singleton
public class StreamThreadRecovery implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = Logger.getLogger(StreamThreadRecovery.class);

    private final ReplaceLoop loop;
    private final Counter replacements;
    private final Clock clock;

    @Inject
    StreamThreadRecovery(HealthSettings settings, MeterRegistry registry, Clock clock) {
        this(new ReplaceLoop(settings.replaceLoopReplacements(), settings.replaceLoopWindow()), registry, clock);
    }

    StreamThreadRecovery(ReplaceLoop loop, MeterRegistry registry, Clock clock) {
        this.loop = loop;
        this.replacements = Counter.builder("nodepool.stream.thread.replacements")
                .description("Stream threads replaced after a failure of the Kafka client or broker")
                .register(registry);
        this.clock = clock;
    }

    @Override
    public StreamThreadExceptionResponse handle(Throwable exception) {
        if (causedByKafka(exception)) {
            replacements.increment();
            loop.replaced(clock.instant());
            LOG.warnf(
                    exception,
                    "a stream thread failed in the Kafka client or broker; replacing it (%d replacements "
                            + "within %s)",
                    loop.recent(clock.instant()),
                    loop.window());
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        LOG.error("a stream thread failed in the service's own code; shutting the Streams client down", exception);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    /** The replacements of stream threads lately, and whether they are a loop. */
    ReplaceLoop replaceLoop() {
        return loop;
    }

    /** Whether the innermost cause is Kafka's: Streams wraps whatever failed, its own exceptions included. */
    public static boolean causedByKafka(Throwable exception) {
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
