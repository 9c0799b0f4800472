package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.resource.ObjectReference;
import java.time.Instant;

/**
 * One {@code CW*} (or spot) event as a service records it on {@code nodepool-event-recorded}, keyed
 * {@code <org>/<pool>}. {@code id} is deterministic for the fact that caused it, so a replay is recognised. The
 * api-service folds these into Kubernetes Events (counting repeats) and publishes them on {@code nodepool-events}.
 */
public record RecordedEvent(String id, String org, String pool, String poolUid, ObjectReference involvedObject,
                            String reason, String type, String message, String component, Instant at) {
}
