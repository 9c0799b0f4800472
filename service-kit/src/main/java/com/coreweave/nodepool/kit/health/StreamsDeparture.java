package com.coreweave.nodepool.kit.health;

import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Takes a stopping instance out of its Streams group at once, so that its tasks move to the other instances now rather
 * than after the session timeout, while it still answers requests: each stream thread is removed, and its main consumer
 * leaves the group as it closes (which Streams' own configuration would not let it do, see
 * {@code PromptCommitClients}). Runs when the shutdown begins (readiness DOWN, before the pre-shutdown delay), and at
 * the latest before Quarkus closes the Streams app.
 */
@ApplicationScoped
public class StreamsDeparture {

    private static final Logger LOG = Logger.getLogger(StreamsDeparture.class);

    private final KafkaStreams streams;
    private final Duration leaveTimeout;
    private final AtomicBoolean left = new AtomicBoolean();

    /**
     * Leaves within {@code leaveTimeout}: each stream thread commits its tasks before it goes, which a busy
     * exactly-once commit takes seconds to do.
     */
    @Inject
    public StreamsDeparture(
            KafkaStreams streams,
            @ConfigProperty(name = "nodepool.shutdown.leave-timeout", defaultValue = "10s") Duration leaveTimeout) {
        this.streams = streams;
        this.leaveTimeout = leaveTimeout;
    }

    void onShutdownBegins(@Observes ShutdownDelayInitiatedEvent event) {
        leave("as the shutdown began");
    }

    void onShutdown(@Observes @Priority(1) ShutdownEvent event) {
        leave("before Kafka Streams closes");
    }

    /** Removes every stream thread, each leaving the group as it goes; once per instance, bounded in time. */
    public void leave(String when) {
        if (!left.compareAndSet(false, true)) {
            return;
        }
        long start = System.nanoTime();
        long deadline = start + leaveTimeout.toNanos();
        int removed = 0;
        try {
            while (System.nanoTime() < deadline) {
                Duration remaining = Duration.ofNanos(deadline - System.nanoTime());
                if (streams.removeStreamThread(remaining).isEmpty()) {
                    break;
                }
                removed++;
            }
        } catch (RuntimeException e) {
            // Closing goes on regardless: the group then notices after the session timeout, as after a crash.
            LOG.warnf("left the Streams group only partly (%d threads): %s", removed, e.toString());
            return;
        }
        LOG.infof(
                "left the Streams group %s: %d stream threads removed in %d ms",
                when, removed, (System.nanoTime() - start) / 1_000_000);
    }
}
