package com.coreweave.nodepool.testing;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** How {@link TopicProbe} writes: one producer, made on first use, each record acknowledged by all replicas. */
final class ProbeWriter implements AutoCloseable {

    private final String bootstrapServers;
    private KafkaProducer<String, byte[]> producer;

    ProbeWriter(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** Writes {@code record} and waits for the broker; returns where it put it. */
    RecordMetadata send(ProducerRecord<String, byte[]> record) {
        String topic = record.topic();
        try {
            return producer().send(record).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "cannot write to " + topic + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to " + topic, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot write to " + topic + " within 30 s", e);
        }
    }

    private synchronized KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(
                    ClientSecurity.client(
                            bootstrapServers,
                            Map.of(
                                    ProducerConfig.ACKS_CONFIG, "all",
                                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000,
                                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)),
                    new StringSerializer(),
                    new ByteArraySerializer());
        }
        return producer;
    }

    @Override
    public synchronized void close() {
        if (producer != null) {
            producer.close();
        }
    }
}
