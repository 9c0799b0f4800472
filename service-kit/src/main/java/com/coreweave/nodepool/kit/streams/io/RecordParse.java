package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.kit.audit.AuditEvent;
import com.coreweave.nodepool.kit.audit.RecordAudits;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * One step of {@link Inputs}: reads and checks each raw record by its topic's registry entry, refuses it with the
 * dead-letter headers, or marks it as belonging on another partition; and notes what the audit trail records of it.
 */
final class RecordParse<V, T> implements FixedKeyProcessor<String, byte[], RecordParse.Parsed<T>> {

    /**
     * The org whose own topic a record came from, set by Inputs alone for the by-key repartition topic: the same header
     * on any record read from elsewhere is a writer's claim, removed unread.
     */
    static final String TENANT_ORG = "nodepool.tenant-org";

    /** Which of a topic's records its reader audits. */
    enum Audit {
        /** None: the services' own internal facts. */
        NONE,
        /** Every record written straight to it, accepted or refused. */
        ALL,
        /** Only the refused: the service audits the others when it decides them. */
        REFUSED
    }

    /**
     * A value read from a record; or the raw record, refused (headers say why) or not on its key's partition; with the
     * audit event of it, if one is due.
     */
    record Parsed<T>(T value, byte[] raw, boolean refused, boolean misplaced, Noted audit) {}

    /** An audit event and whom it is counted against when it is a refusal. */
    record Noted(AuditEvent event, String caller, boolean refusal) {}

    private final Topic<?, V> topic;
    private final Interpretation<V, T> interpretation;
    /** 0 when records are not placed by key (internal topics, or records already moved). */
    private final int partitions;
    /** Whether records come from the by-key repartition topic, where only Inputs wrote the origin header. */
    private final boolean moved;

    private final Audit audit;
    private final String service;
    private final Clock clock;
    private FixedKeyProcessorContext<String, Parsed<T>> context;

    RecordParse(
            Topic<?, V> topic,
            Interpretation<V, T> interpretation,
            int partitions,
            boolean moved,
            Audit audit,
            String service,
            Clock clock) {
        this.topic = topic;
        this.interpretation = interpretation;
        this.partitions = partitions;
        this.moved = moved;
        this.audit = moved ? Audit.NONE : audit;
        this.service = service;
        this.clock = clock;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Parsed<T>> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> received) {
        var meta = context.recordMetadata().orElseThrow();
        Header told = received.headers().lastHeader(TENANT_ORG);
        boolean restWrite = received.headers().lastHeader(RecordPublisher.AUDITED_BY_HTTP) != null;
        FixedKeyRecord<String, byte[]> record = received.withHeaders(kept(received.headers()));
        Headers kept = record.headers();
        T value;
        RecordOrigin origin = RecordOrigin.SHARED;
        V read = null;
        try {
            origin = moved ? origin(told) : RecordOrigin.checked(topic, meta.topic(), record.key());
            read = topic.read(record.key(), record.value());
            value = interpretation.interpret(record.key(), read, record.value(), origin);
        } catch (Rejection rejection) {
            Headers headers = Inputs.headers(rejection, meta.topic(), meta.partition(), meta.offset(), service, clock);
            kept.forEach(headers::add);
            Noted noted = note(record, origin, read, rejection);
            context.forward(record.withValue(new Parsed<T>(null, record.value(), true, false, noted))
                    .withHeaders(headers));
            return;
        }
        Noted noted = audit == Audit.ALL && (origin.fromTenantTopic() || !restWrite)
                ? note(record, origin, read, null)
                : null;
        if (!moved && origin.fromTenantTopic()) {
            kept.add(TENANT_ORG, origin.tenantOrg().getBytes(StandardCharsets.UTF_8));
            context.forward(record.withValue(new Parsed<T>(null, record.value(), false, true, noted))
                    .withHeaders(kept));
            return;
        }
        if (partitions > 0 && meta.partition() != KeyPartition.of(record.key(), partitions)) {
            context.forward(record.withValue(new Parsed<T>(null, record.value(), false, true, noted)));
            return;
        }
        context.forward(record.withValue(new Parsed<>(value, null, false, false, noted)));
    }

    /**
     * The headers a record keeps: neither the origin header, which only Inputs sets, nor {@code dlq.*} headers, which
     * only a dead-lettering service writes (a writer's own would stand beside the service's reason).
     */
    private static Headers kept(Headers received) {
        Headers kept = StreamsInternals.headers(received.toArray());
        kept.remove(TENANT_ORG);
        List<String> claimed = new ArrayList<>();
        kept.forEach(h -> {
            if (h.key().startsWith("dlq.")) {
                claimed.add(h.key());
            }
        });
        claimed.forEach(kept::remove);
        return kept;
    }

    /** The audit event of a record read, or null when its topic's reader does not audit it. */
    private Noted note(FixedKeyRecord<String, byte[]> record, RecordOrigin origin, V read, Rejection refusal) {
        if (audit == Audit.NONE) {
            return null;
        }
        var meta = context.recordMetadata().orElseThrow();
        String user = origin.fromTenantTopic()
                ? TenantTopics.principal(origin.tenantOrg())
                : TenantTopics.orgOf(topic, meta.topic())
                        .map(TenantTopics::principal)
                        .orElse(writerOf(topic));
        String[] key = orgAndName(record.key());
        AuditEvent event = RecordAudits.of(new RecordAudits.RecordWrite(
                meta.topic(),
                meta.partition(),
                meta.offset(),
                topic.name(),
                user,
                key == null ? TenantTopics.orgOf(topic, meta.topic()).orElse(null) : key[0],
                key == null ? null : key[1],
                refusal,
                Instant.ofEpochMilli(record.timestamp()),
                clock.instant(),
                service,
                read instanceof CloudEvent<?> cloudEvent ? cloudEvent.source() : null));
        return new Noted(event, user, refusal != null);
    }

    /**
     * Who wrote a record of a shared topic that came not from REST: the writer its registry entry names besides the
     * services, which on a secured broker alone may; a client of a broker without ACLs otherwise.
     */
    static String writerOf(Topic<?, ?> topic) {
        if (topic.owner().contains("monitoring")) {
            return "monitoring";
        }
        if (topic.owner().contains("operators")) {
            return "nodepool-operator";
        }
        return "system:kafka-client";
    }

    /** The org and the rest of a key of the inbound form {@code <org>/...}; null for a key of another form. */
    private static String[] orgAndName(String key) {
        int slash = key == null ? -1 : key.indexOf('/');
        return slash <= 0 ? null : new String[] {key.substring(0, slash), key.substring(slash + 1)};
    }

    private static RecordOrigin origin(Header told) {
        return told == null ? RecordOrigin.SHARED : new RecordOrigin(new String(told.value(), StandardCharsets.UTF_8));
    }
}
