package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.kit.kafka.DeadLetterRecords;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topic;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * The one way a service reads a topic: as raw bytes, read and checked by the topic's registry entry
 * ({@code Topic.read}), then interpreted by the service, all inside the topology. A record that is refused goes to a
 * dead-letter topic in the same transaction as everything else, with the {@code dlq.*} headers, and processing goes on.
 * A record of an inbound topic (one outside parties write, with any client) that is not on its key's partition is moved
 * there through a repartition topic first; records already there pass straight through.
 */
public final class Inputs {

    private final StreamsBuilder builder;
    private final String service;
    private final int partitions;
    private final Clock clock;

    /** {@code partitions}: the partition count of the service's topics (checked at start-up by TopicCreator). */
    public Inputs(StreamsBuilder builder, String service, int partitions, Clock clock) {
        this.builder = builder;
        this.service = service;
        this.partitions = partitions;
        this.clock = clock;
    }

    /**
     * The values of {@code topic} (a tombstone of a compacted topic stays a null value); the rest go to the service's
     * DLQ.
     */
    public <V> KStream<String, V> read(Topic<?, V> topic) {
        return read(topic, Interpretation.asIs());
    }

    public <V, T> KStream<String, T> read(Topic<?, V> topic, Interpretation<V, T> interpretation) {
        return read(topic, interpretation, DeadLetters.serviceTopic(service));
    }

    /**
     * As {@link #read(Topic)}, for a topic of a polymorphic value of which this service uses only some kinds: records
     * whose type property ({@code kindProperty}, at the top level) names another kind are skipped before they are
     * parsed, which is most of the cost of reading them.
     */
    public <V> KStream<String, V> readKinds(Topic<?, V> topic, String kindProperty, Set<String> kinds) {
        KindPeek peek = new KindPeek(kindProperty, kinds);
        String name = topic.name();
        KStream<String, byte[]> raw = builder.stream(
                        name, Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("read-" + name))
                .filter((key, value) -> peek.wanted(value), Named.as("kinds-" + name));
        return read(raw, topic, Interpretation.asIs(), DeadLetters.serviceTopic(service));
    }

    /** As {@link #read(Topic, Interpretation)}, with refused records going to {@code deadLetterTopic}. */
    public <V, T> KStream<String, T> read(
            Topic<?, V> topic, Interpretation<V, T> interpretation, String deadLetterTopic) {
        String name = topic.name();
        KStream<String, byte[]> raw = builder.stream(
                name, Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("read-" + name));
        return read(raw, topic, interpretation, deadLetterTopic);
    }

    private <V, T> KStream<String, T> read(
            KStream<String, byte[]> raw,
            Topic<?, V> topic,
            Interpretation<V, T> interpretation,
            String deadLetterTopic) {
        String name = topic.name();
        KStream<String, Parsed<T>> parsed = parse(raw, topic, interpretation, topic.anyPartition(), name);
        if (!topic.anyPartition()) {
            return accepted(parsed, deadLetterTopic, name);
        }
        Map<String, KStream<String, Parsed<T>>> placed = parsed.split(Named.as("place-" + name + "-"))
                .branch((key, value) -> value.misplaced(), Branched.as("elsewhere"))
                .defaultBranch(Branched.as("here"));
        KStream<String, byte[]> moved = placed.get("place-" + name + "-elsewhere")
                .mapValues(Parsed::raw, Named.as("misplaced-" + name))
                .repartition(Repartitioned.with(Serdes.String(), Serdes.ByteArray())
                        .withName(name + "-by-key")
                        .withNumberOfPartitions(partitions));
        KStream<String, Parsed<T>> arrived = parse(moved, topic, interpretation, false, name + "-by-key");
        return accepted(placed.get("place-" + name + "-here"), deadLetterTopic, name)
                .merge(accepted(arrived, deadLetterTopic, name + "-by-key"), Named.as("placed-" + name));
    }

    /** The dead-letter headers for a refused record. */
    public static Headers headers(
            Rejection rejection, String topic, int partition, long offset, String service, Clock clock) {
        return DeadLetterRecords.headers(
                rejection.code(), rejection.reason(), topic, partition, offset, null, service, clock.instant());
    }

    private <V, T> KStream<String, Parsed<T>> parse(
            KStream<String, byte[]> raw,
            Topic<?, V> topic,
            Interpretation<V, T> interpretation,
            boolean place,
            String step) {
        return raw.processValues(
                () -> new ParseProcessor<>(topic, interpretation, place ? partitions : 0, service, clock),
                Named.as("parse-" + step));
    }

    private static <T> KStream<String, T> accepted(
            KStream<String, Parsed<T>> parsed, String deadLetterTopic, String step) {
        Map<String, KStream<String, Parsed<T>>> branches = parsed.split(Named.as("route-" + step + "-"))
                .branch((key, value) -> value.refused(), Branched.as("refused"))
                .defaultBranch(Branched.as("read"));
        branches.get("route-" + step + "-refused")
                .mapValues(Parsed::raw, Named.as("raw-" + step))
                .to(
                        deadLetterTopic,
                        Produced.with(Serdes.String(), Serdes.ByteArray()).withName("dead-letter-" + step));
        return branches.get("route-" + step + "-read").mapValues(Parsed::value, Named.as("value-" + step));
    }

    /** A value read from a record; or the raw record, refused (headers say why) or not on its key's partition. */
    private record Parsed<T>(T value, byte[] raw, boolean refused, boolean misplaced) {}

    private static final class ParseProcessor<V, T> implements FixedKeyProcessor<String, byte[], Parsed<T>> {
        private final Topic<?, V> topic;
        private final Interpretation<V, T> interpretation;
        /** 0 when records are not placed by key (internal topics, or records already moved). */
        private final int partitions;

        private final String service;
        private final Clock clock;
        private FixedKeyProcessorContext<String, Parsed<T>> context;

        ParseProcessor(
                Topic<?, V> topic, Interpretation<V, T> interpretation, int partitions, String service, Clock clock) {
            this.topic = topic;
            this.interpretation = interpretation;
            this.partitions = partitions;
            this.service = service;
            this.clock = clock;
        }

        @Override
        public void init(FixedKeyProcessorContext<String, Parsed<T>> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<String, byte[]> record) {
            var meta = context.recordMetadata().orElseThrow();
            T value;
            try {
                value = interpretation.interpret(
                        record.key(), topic.read(record.key(), record.value()), record.value());
            } catch (Rejection rejection) {
                Headers headers = headers(rejection, meta.topic(), meta.partition(), meta.offset(), service, clock);
                record.headers().forEach(headers::add);
                context.forward(record.withValue(new Parsed<T>(null, record.value(), true, false))
                        .withHeaders(headers));
                return;
            }
            if (partitions > 0 && meta.partition() != KeyPartition.of(record.key(), partitions)) {
                context.forward(record.withValue(new Parsed<T>(null, record.value(), false, true)));
                return;
            }
            context.forward(record.withValue(new Parsed<>(value, null, false, false)));
        }
    }
}
