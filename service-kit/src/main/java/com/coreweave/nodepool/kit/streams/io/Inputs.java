package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.kit.kafka.DeadLetterRecords;
import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.kit.streams.io.RefusalObserver.RefusedRecord;
import com.coreweave.nodepool.kit.tracing.TraceStamp;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;
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
 *
 * <p>A topic platform teams write ({@link TenantTopics#INBOUND}) is read with every org's own topic of it
 * ({@code <topic>.<org>}, found by pattern): a record there must be keyed by that org, else it is refused as
 * {@code Forbidden}; the rest take the by-key repartition topic, since an org topic's partitions say nothing of the
 * key's, with their org in the {@link #TENANT_ORG} header, which the interpretation gets as the record's
 * {@link RecordOrigin}.
 */
public final class Inputs {

    /**
     * The org whose own topic a record came from, set by Inputs alone for the by-key repartition topic: the same header
     * on any record read from elsewhere is a writer's claim, removed unread.
     */
    static final String TENANT_ORG = "nodepool.tenant-org";

    private final StreamsBuilder builder;
    private final String service;
    private final int partitions;
    private final Clock clock;
    private final RefusalObserver refusals;

    /** {@code partitions}: the partition count of the service's topics (checked at start-up by TopicCreator). */
    public Inputs(StreamsBuilder builder, String service, int partitions, Clock clock) {
        this(builder, service, partitions, clock, RefusalObserver.NONE);
    }

    /** As {@link #Inputs(StreamsBuilder, String, int, Clock)}, telling {@code refusals} of each record it refuses. */
    public Inputs(StreamsBuilder builder, String service, int partitions, Clock clock, RefusalObserver refusals) {
        this.builder = builder;
        this.service = service;
        this.partitions = partitions;
        this.clock = clock;
        this.refusals = refusals;
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
        KStream<String, byte[]> raw =
                source(topic).filter((key, value) -> peek.wanted(value), Named.as("kinds-" + topic.name()));
        return read(raw, topic, Interpretation.asIs(), DeadLetters.serviceTopic(service));
    }

    /** As {@link #read(Topic, Interpretation)}, with refused records going to {@code deadLetterTopic}. */
    public <V, T> KStream<String, T> read(
            Topic<?, V> topic, Interpretation<V, T> interpretation, String deadLetterTopic) {
        return read(source(topic), topic, interpretation, deadLetterTopic);
    }

    /**
     * The records of {@code topic} as received, with those of every org's own topic of it if platform teams write it.
     */
    private KStream<String, byte[]> source(Topic<?, ?> topic) {
        String name = topic.name();
        KStream<String, byte[]> shared = builder.stream(
                name, Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("read-" + name));
        if (!TenantTopics.INBOUND.contains(topic)) {
            return shared;
        }
        // The pattern finds an org's topic created after start-up at the consumer's next metadata refresh.
        KStream<String, byte[]> orgs = builder.stream(
                TenantTopics.pattern(topic),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("read-" + name + "-orgs"));
        return shared.merge(orgs, Named.as("with-orgs-" + name));
    }

    private <V, T> KStream<String, T> read(
            KStream<String, byte[]> raw,
            Topic<?, V> topic,
            Interpretation<V, T> interpretation,
            String deadLetterTopic) {
        String name = topic.name();
        // An org topic's partitions say nothing of the key's: its records are placed as those of any partition.
        boolean place = topic.anyPartition() || TenantTopics.INBOUND.contains(topic);
        KStream<String, Parsed<T>> parsed = parse(raw, topic, interpretation, place, false, name);
        if (!place) {
            return accepted(parsed, deadLetterTopic, name);
        }
        Map<String, KStream<String, Parsed<T>>> placed = parsed.split(Named.as("place-" + name + "-"))
                .branch((key, value) -> value.misplaced(), Branched.as("elsewhere"))
                .defaultBranch(Branched.as("here"));
        KStream<String, byte[]> misplaced =
                placed.get("place-" + name + "-elsewhere").mapValues(Parsed::raw, Named.as("misplaced-" + name));
        KStream<String, byte[]> moved = TraceStamp.onto(misplaced, "trace-misplaced-" + name)
                .repartition(Repartitioned.with(Serdes.String(), Serdes.ByteArray())
                        .withName(name + "-by-key")
                        .withNumberOfPartitions(partitions));
        KStream<String, Parsed<T>> arrived = parse(moved, topic, interpretation, false, true, name + "-by-key");
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
            boolean moved,
            String step) {
        return raw.processValues(
                () -> new ParseProcessor<>(
                        topic, interpretation, place ? partitions : 0, moved, service, clock, refusals),
                Named.as("parse-" + step));
    }

    private static <T> KStream<String, T> accepted(
            KStream<String, Parsed<T>> parsed, String deadLetterTopic, String step) {
        Map<String, KStream<String, Parsed<T>>> branches = parsed.split(Named.as("route-" + step + "-"))
                .branch((key, value) -> value.refused(), Branched.as("refused"))
                .defaultBranch(Branched.as("read"));
        KStream<String, byte[]> refused =
                branches.get("route-" + step + "-refused").mapValues(Parsed::raw, Named.as("raw-" + step));
        TraceStamp.onto(refused, "trace-dead-letter-" + step)
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
        /** Whether records come from the by-key repartition topic, where only Inputs wrote the origin header. */
        private final boolean moved;

        private final String service;
        private final Clock clock;
        private final RefusalObserver refusals;
        private FixedKeyProcessorContext<String, Parsed<T>> context;

        ParseProcessor(
                Topic<?, V> topic,
                Interpretation<V, T> interpretation,
                int partitions,
                boolean moved,
                String service,
                Clock clock,
                RefusalObserver refusals) {
            this.topic = topic;
            this.interpretation = interpretation;
            this.partitions = partitions;
            this.moved = moved;
            this.service = service;
            this.clock = clock;
            this.refusals = refusals;
        }

        @Override
        public void init(FixedKeyProcessorContext<String, Parsed<T>> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<String, byte[]> received) {
            var meta = context.recordMetadata().orElseThrow();
            Header told = received.headers().lastHeader(TENANT_ORG);
            // No record leaves Inputs with the origin header, nor enters with one it did not set.
            Headers kept = StreamsInternals.headers(received.headers().toArray());
            kept.remove(TENANT_ORG);
            FixedKeyRecord<String, byte[]> record = received.withHeaders(kept);
            T value;
            RecordOrigin origin;
            try {
                origin = moved ? origin(told) : RecordOrigin.checked(topic, meta.topic(), record.key());
                value = interpretation.interpret(
                        record.key(), topic.read(record.key(), record.value()), record.value(), origin);
            } catch (Rejection rejection) {
                refusals.refused(new RefusedRecord(
                        meta.topic(), meta.partition(), meta.offset(), record.key(), record.value(), rejection));
                Headers headers = headers(rejection, meta.topic(), meta.partition(), meta.offset(), service, clock);
                kept.forEach(headers::add);
                context.forward(record.withValue(new Parsed<T>(null, record.value(), true, false))
                        .withHeaders(headers));
                return;
            }
            if (!moved && origin.fromTenantTopic()) {
                kept.add(TENANT_ORG, origin.tenantOrg().getBytes(StandardCharsets.UTF_8));
                context.forward(record.withValue(new Parsed<T>(null, record.value(), false, true))
                        .withHeaders(kept));
                return;
            }
            if (partitions > 0 && meta.partition() != KeyPartition.of(record.key(), partitions)) {
                context.forward(record.withValue(new Parsed<T>(null, record.value(), false, true)));
                return;
            }
            context.forward(record.withValue(new Parsed<>(value, null, false, false)));
        }

        private static RecordOrigin origin(Header told) {
            return told == null
                    ? RecordOrigin.SHARED
                    : new RecordOrigin(new String(told.value(), StandardCharsets.UTF_8));
        }
    }
}
