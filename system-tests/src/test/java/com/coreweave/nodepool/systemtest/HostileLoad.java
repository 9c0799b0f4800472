package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.Stack;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What {@link HostileLoadIT}'s attacks share: a Kafka producer as a tenant's principal, a flood of HTTP requests, and
 * latencies as percentiles. Kept apart from the test so that each attack's section of the test stays its own.
 */
final class HostileLoad {

    private HostileLoad() {}

    /** A producer logged in as {@code principal}, acknowledged by all replicas, for records of raw bytes. */
    static KafkaProducer<String, byte[]> producer(Stack stack, String principal) {
        return new KafkaProducer<>(
                stack.kafkaClient(
                        principal,
                        Map.of(
                                ProducerConfig.ACKS_CONFIG,
                                "all",
                                ProducerConfig.LINGER_MS_CONFIG,
                                5,
                                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                                120_000)),
                new StringSerializer(),
                new ByteArraySerializer());
    }

    /** Sends one record with the timestamp given and waits for the broker; its latency in milliseconds. */
    static long send(KafkaProducer<String, byte[]> producer, String topic, String key, byte[] value, Long timestamp) {
        long start = System.nanoTime();
        try {
            producer.send(new ProducerRecord<>(topic, null, timestamp, key, value))
                    .get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the broker did not take a record of " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** The {@code p}th percentile (0..100) of {@code millis}. */
    static long percentile(List<Long> millis, int p) {
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    /**
     * Sends {@code count} POSTs of {@code body} with {@code headers} to {@code uri} with {@code token} ({@code null}:
     * none), {@code parallel} at a time; how many were answered with each code.
     */
    static Map<Integer, Integer> flood(
            URI uri, String token, String body, Map<String, String> headers, int count, int parallel) {
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        Map<Integer, AtomicInteger> codes = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        ExecutorService senders = Executors.newFixedThreadPool(parallel);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < parallel; t++) {
                running.add(senders.submit(() -> {
                    while (next.getAndIncrement() < count) {
                        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                                .timeout(Duration.ofSeconds(10))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body));
                        headers.forEach(request::header);
                        if (token != null) {
                            request.header("Authorization", "Bearer " + token);
                        }
                        int code;
                        try {
                            code = http.send(request.build(), HttpResponse.BodyHandlers.discarding())
                                    .statusCode();
                        } catch (IOException e) {
                            code = -1;
                        }
                        codes.computeIfAbsent(code, c -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> sender : running) {
                sender.get(5, TimeUnit.MINUTES);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the flood did not finish", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            senders.shutdownNow();
        }
        Map<Integer, Integer> answered = new TreeMap<>();
        codes.forEach((code, n) -> answered.put(code, n.get()));
        return answered;
    }

    /** Every record of {@code topic} up to its end now, read as {@code principal} (no consumer group). */
    static List<ConsumerRecord<String, String>> readAll(Stack stack, String principal, String topic) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                stack.kafkaClient(principal, Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")),
                new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end within 60 s");
                }
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
            return records;
        }
    }
}
