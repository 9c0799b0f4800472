package com.coreweave.nodepool.kit.audit;

import com.coreweave.nodepool.kit.kafka.KafkaSecurity;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.schema.topics.AuditKeys;
import com.coreweave.nodepool.schema.topics.Topics;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Where a REST write's audit event goes once the request is answered: the local file ({@link AuditLog}) and the
 * {@code audit-events} topic, through a plain producer of its own (batched, LZ4, not transactional), on one thread of
 * its own so that no request waits for either. Refusals are summarized per caller and reason ({@link RefusalTally}). At
 * most {@link #MAX_WAITING} events wait to be written; past that they are dropped and counted in the log, so a flood
 * cannot grow the heap.
 */
@ApplicationScoped
public class AuditTrail {

    static final int MAX_WAITING = 10_000;

    private static final Logger LOG = Logger.getLogger(AuditTrail.class);

    @Inject
    KafkaSettings settings;

    @Inject
    KafkaSecurity security;

    @Inject
    Clock clock;

    /** Whether events go to the topic as well as the file (off only where a test runs without a broker). */
    @ConfigProperty(name = "nodepool.audit.topic-enabled", defaultValue = "true")
    boolean toTopic;

    private final RefusalTally tally = new RefusalTally();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicLong dropped = new AtomicLong();
    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "audit-trail");
        thread.setDaemon(true);
        return thread;
    });
    private Producer<String, byte[]> producer;

    @PostConstruct
    void start() {
        long every = RefusalTally.INTERVAL.toMillis() / 2;
        writer.scheduleWithFixedDelay(this::summarize, every, every, TimeUnit.MILLISECONDS);
    }

    /** The producer: acknowledged by all replicas, idempotent, LZ4 batches; {@code security}'s settings. */
    static Map<String, Object> producerConfig(KafkaSettings settings, KafkaSecurity security) {
        return security.applyTo(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                settings.bootstrapServers(),
                ProducerConfig.CLIENT_ID_CONFIG,
                "audit-trail",
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                "lz4",
                ProducerConfig.LINGER_MS_CONFIG,
                50,
                ProducerConfig.MAX_BLOCK_MS_CONFIG,
                10_000));
    }

    /**
     * Records a write's event, after its answer: bounded, then written, or counted if it is a refusal of a caller
     * ({@code caller}: its user and org, or the address of an unauthenticated client) already recorded this interval.
     */
    public void record(AuditEvent event, String caller) {
        if (waiting.incrementAndGet() > MAX_WAITING) {
            waiting.decrementAndGet();
            if (dropped.getAndIncrement() % MAX_WAITING == 0) {
                LOG.warnf(
                        "%d audit events dropped so far: more than %d waited to be written",
                        dropped.get(), MAX_WAITING);
            }
            return;
        }
        AuditEvent bounded = AuditBounds.bounded(event);
        writer.execute(() -> {
            waiting.decrementAndGet();
            if (!refused(bounded) || tally.admit(caller, bounded, clock.instant())) {
                write(bounded);
            }
        });
    }

    private static boolean refused(AuditEvent event) {
        return event.responseStatus() != null && event.responseStatus().code() >= 400;
    }

    private void summarize() {
        try {
            tally.due(clock.instant(), UUID.randomUUID().toString()).forEach(this::write);
        } catch (RuntimeException e) {
            LOG.error("cannot write the audit summaries", e);
        }
    }

    private void write(AuditEvent event) {
        AuditLog.write(event);
        if (!toTopic) {
            return;
        }
        try {
            String org =
                    event.annotations() == null ? null : event.annotations().get(AuditEvents.ORG);
            byte[] value = AuditLog.line(event).getBytes(StandardCharsets.UTF_8);
            producer().send(new ProducerRecord<>(Topics.AUDIT_EVENTS.name(), AuditKeys.of(org), value), (m, e) -> {
                if (e != null) {
                    LOG.errorf("cannot write the audit event %s: %s", event.auditID(), e.getMessage());
                }
            });
        } catch (Exception e) {
            // The file has it; the request it records was answered long ago.
            LOG.errorf(e, "cannot send the audit event %s", event.auditID());
        }
    }

    private Producer<String, byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(
                    producerConfig(settings, security), new StringSerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    void close(@Observes ShutdownEvent event) {
        writer.execute(() -> {
            tally.due(
                            clock.instant().plus(RefusalTally.INTERVAL),
                            UUID.randomUUID().toString())
                    .forEach(this::write);
            if (producer != null) {
                producer.close();
            }
        });
        writer.shutdown();
        try {
            writer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
