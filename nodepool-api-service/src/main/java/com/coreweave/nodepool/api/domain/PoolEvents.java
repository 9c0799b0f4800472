package com.coreweave.nodepool.api.domain;

import io.fabric8.kubernetes.api.model.Event;
import java.util.List;

/**
 * A pool's Kubernetes Events (kept in its view, {@link PoolView#events}), newest last, and the ids of the recorded
 * events already folded in, so that a replayed record is not counted twice.
 */
public record PoolEvents(List<Event> events, List<String> seenIds) {

    public static final PoolEvents EMPTY = new PoolEvents(List.of(), List.of());
}
