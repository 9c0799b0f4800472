package com.coreweave.nodepool.kit.audit;

import com.coreweave.nodepool.kit.audit.AuditEvent.ObjectRef;
import com.coreweave.nodepool.kit.audit.AuditEvent.User;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The audit event of one record a platform team, monitoring or an operator wrote straight to a topic, as its reader
 * took it: accepted for processing ({@code 202}), or refused with the reason and the code its REST twin would answer.
 * What the service observed stands in the standard fields (the principal the broker let write the topic, the record's
 * place, the broker's append time); what the writer chose is only an annotation ({@link #CLOUDEVENT_SOURCE}).
 */
public final class RecordAudits {

    /** The CloudEvent source a record names: its writer's own word. */
    public static final String CLOUDEVENT_SOURCE = AuditEvents.CLOUDEVENT_SOURCE;

    private RecordAudits() {}

    /**
     * One record read: {@code received} is the topic it was on (an org's own, or the shared one), {@code resource} the
     * registry topic it stands for, {@code user} the principal that could write it, {@code org} and {@code name} from
     * its key (null when the key did not parse), {@code refusal} null when it was accepted.
     */
    public record RecordWrite(
            String received,
            int partition,
            long offset,
            String resource,
            String user,
            String org,
            String name,
            Rejection refusal,
            Instant appended,
            Instant read,
            String service,
            String source) {}

    public static AuditEvent of(RecordWrite write) {
        String record = "kafka:" + write.received() + "/" + write.partition() + "/" + write.offset();
        Map<String, String> annotations = new TreeMap<>();
        if (write.org() != null) {
            annotations.put(AuditEvents.ORG, write.org());
        }
        annotations.put(AuditEvents.SERVICE, write.service());
        if (write.source() != null) {
            annotations.put(CLOUDEVENT_SOURCE, write.source());
        }
        int code = write.refusal() == null ? 202 : code(write.refusal().code());
        return AuditBounds.bounded(AuditEvent.completed(
                // The record's place names it: a transaction processed again writes the same event again.
                UUID.nameUUIDFromBytes((write.service() + "|" + record).getBytes(StandardCharsets.UTF_8))
                        .toString(),
                record,
                "create",
                new User(write.user(), write.org() == null ? List.of() : List.of(write.org())),
                null,
                null,
                new ObjectRef(write.resource(), write.org(), write.name(), null, null, null),
                AuditEvents.status(
                        code,
                        write.refusal() == null
                                ? null
                                : Statuses.failure(
                                        code,
                                        write.refusal().code().header(),
                                        write.refusal().reason(),
                                        null)),
                AuditEvents.timestamp(write.appended()),
                AuditEvents.timestamp(write.read()),
                annotations));
    }

    /** The HTTP code the REST twin of a refused record would answer. */
    static int code(Code code) {
        return switch (code) {
            case FORBIDDEN -> 403;
            case MALFORMED_JSON, KEY_MISSING, INVALID_KEY, VALUE_MISSING -> 400;
            case ALREADY_EXISTS, CONFLICT -> 409;
            case NOT_FOUND -> 404;
            default -> 422;
        };
    }
}
