package com.coreweave.nodepool.schema.events;

import com.coreweave.nodepool.schema.Limits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Events one change of a service recorded about one pool, in order, as one record of {@code nodepool-event-recorded}
 * keyed {@code <org>/<pool>}: a pool's reconcile often records several at once (scaled up, node assigned, node
 * registered), and one record carries them, up to {@link Limits#MAX_EVENTS_PER_RECORD}; a change of a big pool
 * (thousands of nodes assigned at once) goes out in as many records as that takes, in order ({@link #chunked}).
 */
public record RecordedEvents(List<RecordedEvent> events) {

    public RecordedEvents {
        events = events == null ? List.of() : List.copyOf(events);
    }

    /** {@code events} of one pool as records of at most {@link Limits#MAX_EVENTS_PER_RECORD}, in order. */
    public static List<RecordedEvents> chunked(List<RecordedEvent> events) {
        List<RecordedEvents> records = new ArrayList<>();
        for (int from = 0; from < events.size(); from += Limits.MAX_EVENTS_PER_RECORD) {
            records.add(new RecordedEvents(
                    events.subList(from, Math.min(events.size(), from + Limits.MAX_EVENTS_PER_RECORD))));
        }
        return records;
    }

    /** {@code events}, about any pools, grouped by pool key ({@code <org>/<pool>}), in their order. */
    public static Map<String, List<RecordedEvent>> byPool(List<RecordedEvent> events) {
        Map<String, List<RecordedEvent>> grouped = new LinkedHashMap<>();
        for (RecordedEvent event : events) {
            grouped.computeIfAbsent(event.org() + "/" + event.pool(), k -> new ArrayList<>())
                    .add(event);
        }
        return grouped;
    }
}
