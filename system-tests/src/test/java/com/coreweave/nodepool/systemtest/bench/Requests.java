package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.testing.ClientSecurity;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;

/** {@code NodePoolRequested} CloudEvents as platform teams publish them (DESIGN.md §3), and the producer for them. */
final class Requests {

    private Requests() {}

    /** One producer, acks=all, batching as a bulk publisher would. */
    static KafkaProducer<String, String> producer(String bootstrapServers) {
        return new KafkaProducer<>(
                ClientSecurity.client(
                        bootstrapServers,
                        Map.of(
                                ProducerConfig.ACKS_CONFIG,
                                "all",
                                ProducerConfig.LINGER_MS_CONFIG,
                                5,
                                ProducerConfig.BATCH_SIZE_CONFIG,
                                65_536)),
                new StringSerializer(),
                new StringSerializer());
    }

    /** A pool manifest for a {@code <zone>/<type>} ledger (no region when it is the api-service's default zone). */
    static String manifest(String name, String ledger, int nodes) {
        String[] parts = ledger.split("/");
        return BenchClient.pool(
                name, parts[0].equals(PipelineBenchmark.DEFAULT_ZONE) ? null : parts[0], parts[1], nodes);
    }

    /** An APPLY of {@code manifest} for the pool {@code key} ({@code <org>/<pool>}), with an id unique to the run. */
    static String apply(String runId, String key, String manifest) {
        return """
        {"specversion":"1.0","id":"bench-%s-%s","source":"benchmark","type":"NodePoolRequested",\
        "subject":"%s","time":"%s","datacontenttype":"application/json",\
        "data":{"operation":"APPLY","nodePool":%s}}""".formatted(runId, key, key, Instant.now(), manifest);
    }
}
