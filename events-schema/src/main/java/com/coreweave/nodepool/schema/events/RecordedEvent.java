package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import java.time.Instant;

/**
 * One {@code CW*} (or spot) event as a service records it on {@code nodepool-event-recorded}, keyed
 * {@code <org>/<pool>}. {@code id} is deterministic for the fact that caused it, so a replay is recognised. The
 * api-service folds these into Kubernetes Events (counting repeats) and publishes them on {@code nodepool-events}.
 */
public record RecordedEvent(
        String id,
        String org,
        String pool,
        String poolUid,
        ObjectReference involvedObject,
        String reason,
        String type,
        String message,
        String component,
        Instant at) {

    public RecordedEvent {
        // A message may quote what a tenant wrote (a refused request's reason, an alert's details): bounded here, once.
        if (message != null && message.length() > Limits.MAX_EVENT_MESSAGE_CHARS) {
            message = message.substring(0, Limits.MAX_EVENT_MESSAGE_CHARS - 1) + "…";
        }
    }

    /**
     * An event about the pool itself. {@code causeId} names the fact that caused it (e.g. the request id, or the pool
     * uid and generation), so the same cause always gives the same event id.
     */
    public static RecordedEvent ofPool(
            PoolRef pool, CwEvent event, String message, String causeId, String component, Instant at) {
        return new RecordedEvent(
                component + "/" + causeId + "/" + event.name(),
                pool.org(),
                pool.pool(),
                pool.uid(),
                ObjectReference.nodePool(pool.pool(), pool.uid()),
                event.reason(),
                event.type(),
                message,
                component,
                at);
    }

    /** An event about one node of the pool. */
    public static RecordedEvent ofNode(
            PoolRef pool, String node, CwEvent event, String message, String causeId, String component, Instant at) {
        return new RecordedEvent(
                component + "/" + causeId + "/" + node + "/" + event.name(),
                pool.org(),
                pool.pool(),
                pool.uid(),
                ObjectReference.node(node),
                event.reason(),
                event.type(),
                message,
                component,
                at);
    }
}
