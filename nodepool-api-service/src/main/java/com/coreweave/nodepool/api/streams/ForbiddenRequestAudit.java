package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.kit.audit.AuditEvents;
import com.coreweave.nodepool.kit.audit.AuditLog;
import com.coreweave.nodepool.kit.streams.io.RefusalObserver;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.topics.NodePoolRequests;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Audits each request of an org's own {@code nodepool-requested} topic that reading refused as Forbidden (for another
 * org's pool, or claiming REST's source): the pool processor never sees it, and a write refused for who made it is what
 * an audit is for. Other refusals (a record that is no request) are dead letters only, as on the shared topic.
 */
final class ForbiddenRequestAudit implements RefusalObserver {

    private static final Logger LOG = Logger.getLogger(ForbiddenRequestAudit.class);

    private final Clock clock;

    ForbiddenRequestAudit(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void refused(RefusedRecord refused) {
        if (!AuditLog.enabled() || refused.rejection().code() != Code.FORBIDDEN) {
            return;
        }
        TenantTopics.orgOf(Topics.NODEPOOL_REQUESTED, refused.topic()).ifPresent(org -> {
            try {
                AuditLog.write(AuditEvents.of(write(org, refused, clock.instant())));
            } catch (RuntimeException e) {
                // The refusal stands whether or not it could be audited.
                LOG.errorf(
                        e,
                        "cannot audit the refusal of %s/%d/%d",
                        refused.topic(),
                        refused.partition(),
                        refused.offset());
            }
        });
    }

    /**
     * The audit event of one refused record. Its auditID comes from the record's place, so that a transaction that
     * aborts and is processed again writes the same event again; what the value says is left out if it is unreadable.
     */
    static AuditEvents.TopicWrite write(String org, RefusedRecord refused, Instant now) {
        String record = "kafka:" + refused.topic() + "/" + refused.partition() + "/" + refused.offset();
        CloudEvent<JsonNode> event = event(refused);
        return new AuditEvents.TopicWrite(
                UUID.nameUUIDFromBytes(record.getBytes(StandardCharsets.UTF_8)).toString(),
                event == null ? null : event.id(),
                TenantTopics.principal(org),
                event == null ? null : event.source(),
                org,
                operation(event),
                // A Forbidden record's key parsed: the org check comes after the key's own.
                PoolKey.parse(refused.key()).pool(),
                record,
                403,
                Statuses.failure(
                        403, Code.FORBIDDEN.header(), refused.rejection().reason(), null),
                null,
                event != null && event.time() != null ? event.time() : now,
                now,
                ApiTopology.SERVICE);
    }

    private static CloudEvent<JsonNode> event(RefusedRecord refused) {
        try {
            return Topics.NODEPOOL_REQUESTED.read(refused.key(), refused.value());
        } catch (Rejection unreadable) {
            return null;
        }
    }

    private static Operation operation(CloudEvent<JsonNode> event) {
        try {
            return event == null ? null : NodePoolRequests.operation(event.data());
        } catch (Rejection unreadable) {
            return null;
        }
    }
}
