package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.kit.deadletter.DeadLetterRecords;
import com.coreweave.nodepool.kit.streams.io.RecordParse.Audit;
import com.coreweave.nodepool.kit.streams.io.RecordParse.Parsed;
import com.coreweave.nodepool.kit.tracing.TraceStamp;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.util.HashSet;
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
 * key's, with their org in the {@code nodepool.tenant-org} header, which the interpretation gets as the record's
 * {@link RecordOrigin}.
 */
public final class Inputs {

    private final StreamsBuilder builder;
    private final String service;
    private final int partitions;
    private final Clock clock;
    private final Set<String> decided = new HashSet<>();
    private final Set<String> elsewhere = new HashSet<>();

    /** {@code partitions}: the partition count of the service's topics (checked at start-up by TopicCreator). */
    public Inputs(StreamsBuilder builder, String service, int partitions, Clock clock) {
        this.builder = builder;
        this.service = service;
        this.partitions = partitions;
        this.clock = clock;
    }

    /**
     * Says that another service that reads {@code topic} too audits its records, so that each is audited once; this
     * service still dead-letters what it refuses.
     */
    public Inputs auditedElsewhere(Topic<?, ?> topic) {
        elsewhere.add(topic.name());
        return this;
    }

    /**
     * Says that the service audits each accepted record of {@code topic} itself when it decides it (with the answer),
     * so only the refused ones are audited as they are read.
     */
    public Inputs auditingDecisionsOf(Topic<?, ?> topic) {
        decided.add(topic.name());
        return this;
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
        Audit audit =
                !place || elsewhere.contains(name) ? Audit.NONE : decided.contains(name) ? Audit.REFUSED : Audit.ALL;
        KStream<String, Parsed<T>> parsed = parse(raw, topic, interpretation, place, false, audit, name);
        if (!place) {
            return accepted(parsed, deadLetterTopic, name);
        }
        if (audit != Audit.NONE) {
            parsed.process(() -> new TopicAudits<T>(name, clock), Named.as("audit-" + name))
                    .to(
                            Topics.AUDIT_EVENTS.name(),
                            Produced.with(Serdes.String(), Serdes.ByteArray()).withName("audit-events-" + name));
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
        KStream<String, Parsed<T>> arrived =
                parse(moved, topic, interpretation, false, true, Audit.NONE, name + "-by-key");
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
            Audit audit,
            String step) {
        return raw.processValues(
                () -> new RecordParse<>(topic, interpretation, place ? partitions : 0, moved, audit, service, clock),
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
}
