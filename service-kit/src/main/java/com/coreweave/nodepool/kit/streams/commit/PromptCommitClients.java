package com.coreweave.nodepool.kit.streams.commit;

import com.coreweave.nodepool.kit.deadletter.DeadLetteringProducer;
import com.coreweave.nodepool.kit.kafka.KafkaSecurity;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * The Kafka clients Quarkus gives the service's Kafka Streams: Streams' own defaults, except that each stream thread's
 * producer dead-letters what cannot be written ({@link DeadLetteringProducer}), and its main consumer and producer
 * report its polls and writes for {@link PromptCommits} (unless {@code nodepool.kafka.prompt-commits} is false, which
 * restores the plain per-interval commits). Every client carries the service's {@link KafkaSecurity} settings, over
 * what Quarkus put in the Streams configuration (which, e.g., switches TLS host name verification off unless told). The
 * main consumer leaves its group when its stream thread stops ({@link #LEAVE_GROUP_ON_CLOSE}).
 */
@ApplicationScoped
public class PromptCommitClients implements KafkaClientSupplier {

    /**
     * Kafka's internal consumer setting that Streams turns off, so that a stopping instance would hold its tasks until
     * its session expires. On, a stopping instance (and a removed stream thread, {@code StreamsDeparture}) hands them
     * over at once: with a standby of each task elsewhere, that is seconds of unavailability instead of a session's.
     */
    static final String LEAVE_GROUP_ON_CLOSE = "internal.leave.group.on.close";

    private final KafkaSettings settings;
    private final MeterRegistry registry;
    private final KafkaSecurity security;

    @Inject
    public PromptCommitClients(KafkaSettings settings, MeterRegistry registry, KafkaSecurity security) {
        this.settings = settings;
        this.registry = registry;
        this.security = security;
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(secured(config));
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        Map<String, Object> secured = secured(config);
        return settings.promptCommits()
                ? new PromptCommits.SendWatchingProducer(secured, registry)
                : new DeadLetteringProducer(secured, registry);
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        Map<String, Object> main = secured(config);
        main.put(LEAVE_GROUP_ON_CLOSE, true);
        return settings.promptCommits() ? new PromptCommits.PollWatchingConsumer(main) : plain(main);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return plain(secured(config));
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return plain(secured(config));
    }

    /** Streams' configuration of a client with the service's security settings over it (a copy, to change at will). */
    Map<String, Object> secured(Map<String, Object> config) {
        return security.applyTo(config);
    }

    private static Consumer<byte[], byte[]> plain(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
