package com.coreweave.nodepool.schema.topics;

import static com.coreweave.nodepool.schema.topics.RecordChecks.blank;
import static com.coreweave.nodepool.schema.topics.RecordChecks.invalid;
import static com.coreweave.nodepool.schema.topics.RecordChecks.sameKey;
import static com.coreweave.nodepool.schema.topics.RecordChecks.segment;

import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the pool spine's records must satisfy: accepted pools, decisions, counts, recorded events, status and audit
 * events.
 */
final class PoolRecordChecks {

    private PoolRecordChecks() {}

    static void accepted(PoolKey key, NodePoolAccepted accepted) {
        NodePool pool = accepted.nodePool();
        if (pool == null || pool.metadata() == null || pool.spec() == null || accepted.validation() == null) {
            throw invalid("an accepted pool needs nodePool.metadata, nodePool.spec and validation");
        }
        if (blank(pool.metadata().uid()) || pool.metadata().generation() == null) {
            throw invalid("an accepted pool needs metadata.uid and metadata.generation");
        }
        if (!segment(pool.spec().region()) || !segment(pool.spec().instanceType())) {
            throw invalid("an accepted pool needs spec.region and spec.instanceType without '/'");
        }
        sameKey(key, accepted.org(), pool.name());
    }

    static void orgPoolCount(String key, OrgPoolCount count) {
        if (blank(count.org()) || count.partition() < 0 || count.pools() < 0 || count.bytes() < 0) {
            throw invalid("a pool count needs an org, a partition, a count and bytes, none negative");
        }
        if (!key.equals(count.key())) {
            throw new Rejection(
                    Code.KEY_MISMATCH, "key '" + key + "' is not the count's <org>/<partition> '" + count.key() + "'");
        }
    }

    static void eventsRecorded(PoolKey key, RecordedEvents recorded) {
        if (recorded.events().isEmpty()) {
            throw invalid("events must name at least one recorded event");
        }
        for (RecordedEvent event : recorded.events()) {
            if (blank(event.id()) || blank(event.reason()) || blank(event.type()) || blank(event.poolUid())) {
                throw invalid("every recorded event needs id, poolUid, reason and type");
            }
            sameKey(key, event.org(), event.pool());
        }
    }

    static void requestDecided(PoolKey key, RequestDecided decided) {
        if (blank(decided.requestId()) || decided.outcome() == null) {
            throw invalid("a decision needs requestId and outcome");
        }
    }

    static void status(PoolKey key, NodePool pool) {
        if (pool.metadata() == null || !key.pool().equals(pool.name())) {
            throw new Rejection(Code.KEY_MISMATCH, "key '" + key + "' does not match the NodePool's metadata.name");
        }
    }

    /** An audit event is Kubernetes' {@code audit.k8s.io/v1} Event with an id. */
    static void auditEvent(String key, JsonNode event) {
        if (!"Event".equals(event.path("kind").asText())
                || !"audit.k8s.io/v1".equals(event.path("apiVersion").asText())
                || blank(event.path("auditID").asText(null))) {
            throw invalid("an audit event is an audit.k8s.io/v1 Event with an auditID");
        }
    }
}
