package com.coreweave.nodepool.kit.kafka;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.kit.tracing.TraceHeaders;
import com.coreweave.nodepool.schema.Json;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes a record for a REST call and waits until the broker has it (acks=all, idempotent), so that a 2xx answer means
 * the request is durable in Kafka. A broker that does not answer in time gives 503, never a lost write.
 */
@ApplicationScoped
public class RecordPublisher {

    /**
     * Marks a record written for a REST call, whose audit event is its HTTP answer's: readers of a shared topic do not
     * audit it again. Only the services and trusted principals write shared topics; on an org topic it is ignored.
     */
    public static final String AUDITED_BY_HTTP = "nodepool.audited-by-http";

    @Inject
    KafkaSettings settings;

    @Inject
    KafkaSecurity security;

    private volatile Producer<String, byte[]> producer;

    /** The producer's configuration: acknowledged by all replicas, idempotent, quick to give up; {@code security}'s. */
    static Map<String, Object> producerConfig(KafkaSettings settings, KafkaSecurity security) {
        return security.applyTo(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000));
    }

    private Producer<String, byte[]> producer() {
        if (producer == null) {
            synchronized (this) {
                if (producer == null) {
                    producer = new KafkaProducer<>(
                            producerConfig(settings, security), new StringSerializer(), new ByteArraySerializer());
                }
            }
        }
        return producer;
    }

    /** Writes {@code value} as JSON (null: a tombstone) and returns once it is acknowledged. */
    public RecordMetadata publish(String topic, String key, Object value) {
        byte[] bytes = value == null ? null : value instanceof byte[] raw ? raw : Json.bytes(value);
        return acknowledged(
                        topic, () -> List.of(producer().send(new ProducerRecord<>(topic, null, key, bytes, traced()))))
                .getFirst();
    }

    /**
     * Writes {@code value} to every partition of {@code topic}, for a fact that every task of a consumer must see (each
     * partition is read by one task), and returns once all are acknowledged.
     */
    public void publishToEveryPartition(String topic, String key, Object value) {
        byte[] bytes = Json.bytes(value);
        acknowledged(
                topic,
                () -> producer().partitionsFor(topic).stream()
                        .map(partition -> producer()
                                .send(new ProducerRecord<>(topic, partition.partition(), key, bytes, traced())))
                        .toList());
    }

    /** The trace context of the REST call writing, so that what it causes joins its trace, and the audit mark. */
    private static Headers traced() {
        Headers headers = TraceHeaders.withCurrent(StreamsInternals.headers());
        headers.add(AUDITED_BY_HTTP, new byte[] {'1'});
        return headers;
    }

    /** Sends, then waits until the broker has every record; a broker that does not answer in time is a 503. */
    private List<RecordMetadata> acknowledged(String topic, Supplier<List<Future<RecordMetadata>>> sends) {
        try {
            List<RecordMetadata> written = new ArrayList<>();
            for (Future<RecordMetadata> sent : sends.get()) {
                written.add(sent.get(15, TimeUnit.SECONDS));
            }
            return written;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while writing to Kafka");
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            throw ApiException.unavailable("Kafka did not accept the write to " + topic + ": "
                    + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
        }
    }

    void close(@Observes ShutdownEvent event) {
        if (producer != null) {
            producer.close();
        }
    }
}
