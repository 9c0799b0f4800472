package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.testing.ClientSecurity;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Follows the topics a pool passes through, read_committed like every reader of ours (so a fact counts from the moment
 * its transaction committed, as the next service sees it), and stamps when each expected pool first shows each stage.
 * All stamps are {@link System#nanoTime()} of this JVM, comparable with the time a request was sent.
 */
final class PoolTracker implements AutoCloseable {

    static final String REQUESTED = "nodepool-requested";
    static final String DECIDED = "nodepool-request-decided";
    /** Keyed by capacity ledger: a record's pool is in its value. */
    static final String QUOTA = "capacity-demanded";

    static final String CAPACITY = "capacity-checked";
    static final String NODES = "nodepool-nodes-changed";
    static final String STATUS = "nodepool-status";
    /** Every stage of a create; {@link #STATUS_ONLY}: only when pools are TargetMet (and deleted). */
    static final List<String> STAGES = List.of(REQUESTED, DECIDED, QUOTA, CAPACITY, NODES, STATUS);

    static final List<String> STATUS_ONLY = List.of(STATUS);

    /** When a pool was first seen at each stage (nanoTime; 0 = not yet). Written by the tracker thread only. */
    static final class Trace {
        final int target;
        volatile long sent;
        volatile long decided;
        volatile long quota;
        volatile long granted;
        volatile long assigned;
        volatile long registered;
        volatile long targetMet;
        volatile long tombstone;
        /** Distinct nodes seen registered, for progress while a big pool grows. */
        volatile int registeredCount;
        /**
         * Epoch ms: the first request's record time (when it was produced), the first decision's record time (when the
         * pool processor made it), and when that decision became visible here.
         */
        volatile long requestRecordMs;

        volatile long decidedRecordMs;
        volatile long decidedVisibleMs;
        private final Set<String> registeredNodes = new HashSet<>();

        Trace(int target) {
            this.target = target;
        }
    }

    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, Trace> traces = new ConcurrentHashMap<>();
    private final KafkaConsumer<String, String> consumer;
    private final Thread thread;
    private volatile RuntimeException failure;

    PoolTracker(String bootstrapServers, List<String> topics) {
        consumer = new KafkaConsumer<>(
                ClientSecurity.client(
                        bootstrapServers,
                        Map.of(
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed",
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                false,
                                ConsumerConfig.CLIENT_ID_CONFIG,
                                "benchmark-tracker",
                                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                                4 * 1024 * 1024)),
                new StringDeserializer(),
                new StringDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            var infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist; are the services up?");
            }
            infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        thread = Thread.ofPlatform().name("benchmark-tracker").daemon().start(this::run);
    }

    /** Registers a pool to follow, before its request is sent. */
    Trace expect(String key, int targetNodes) {
        Trace trace = new Trace(targetNodes);
        traces.put(key, trace);
        return trace;
    }

    Trace trace(String key) {
        return traces.get(key);
    }

    /** Waits until {@code stage} of that pool is stamped; returns the stamp, or 0 after {@code timeout}. */
    long await(Trace trace, ToLongFunction<Trace> stage, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long at;
        while ((at = stage.applyAsLong(trace)) == 0 && System.nanoTime() < deadline) {
            check();
            sleep(2);
        }
        return at;
    }

    /** How many of {@code keys} have reached {@code stage}. */
    int count(Collection<String> keys, ToLongFunction<Trace> stage) {
        int n = 0;
        for (String key : keys) {
            Trace trace = traces.get(key);
            if (trace != null && stage.applyAsLong(trace) != 0) {
                n++;
            }
        }
        return n;
    }

    void check() {
        if (failure != null) {
            throw failure;
        }
    }

    private void run() {
        try {
            while (true) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    long now = System.nanoTime();
                    String pool = record.topic().equals(QUOTA) && record.value() != null
                            ? read(record.value()).path("pool").asText()
                            : record.key();
                    Trace trace = pool == null ? null : traces.get(pool);
                    if (trace != null) {
                        if (record.topic().equals(REQUESTED) && trace.requestRecordMs == 0) {
                            trace.requestRecordMs = record.timestamp();
                        } else if (record.topic().equals(DECIDED) && trace.decidedRecordMs == 0) {
                            trace.decidedRecordMs = record.timestamp();
                            trace.decidedVisibleMs = System.currentTimeMillis();
                        }
                        onRecord(trace, record.topic(), record.value(), now);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            failure = e;
        } catch (Error e) {
            failure = new IllegalStateException("the topic tracker stopped: " + e, e);
            throw e;
        } finally {
            consumer.close();
        }
    }

    private void onRecord(Trace trace, String topic, String value, long now) {
        switch (topic) {
            case DECIDED -> {
                if (trace.decided == 0) {
                    trace.decided = now;
                }
            }
            case QUOTA -> {
                if (trace.quota == 0 && value != null) {
                    trace.quota = now;
                }
            }
            case CAPACITY -> {
                if (trace.granted == 0
                        && value != null
                        && read(value).path("grants").size() >= trace.target) {
                    trace.granted = now;
                }
            }
            case NODES -> {
                if (value == null) {
                    return;
                }
                JsonNode fact = read(value);
                String kind = fact.path("fact").asText();
                // A node assigned and registered in one transaction is written as its registration alone.
                if ((kind.equals("NodeAssigned") || kind.equals("NodeRegistered")) && trace.assigned == 0) {
                    trace.assigned = now;
                }
                if (kind.equals("NodeRegistered")) {
                    trace.registeredNodes.add(
                            fact.path("node").path("metadata").path("name").asText());
                    trace.registeredCount = trace.registeredNodes.size();
                    if (trace.registered == 0 && trace.registeredNodes.size() >= trace.target) {
                        trace.registered = now;
                    }
                }
            }
            case STATUS -> {
                if (value == null) {
                    if (trace.tombstone == 0) {
                        trace.tombstone = now;
                    }
                } else if (trace.targetMet == 0 && value.contains("TargetMet")) {
                    JsonNode pool = read(value);
                    for (JsonNode c : pool.path("status").path("conditions")) {
                        if (c.path("type").asText().equals("AtTarget")
                                && c.path("reason").asText().equals("TargetMet")
                                && c.path("status").asText().equals("True")
                                && pool.path("status").path("currentNodes").asInt(-1) == trace.target) {
                            trace.targetMet = now;
                        }
                    }
                }
            }
            default -> {}
        }
    }

    private JsonNode read(String value) {
        try {
            return json.readTree(value);
        } catch (java.io.IOException e) {
            return json.nullNode();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        consumer.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
