package com.coreweave.nodepool.schema.events;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The events one change of a service recorded about one pool, in order, as one record of
 * {@code nodepool-event-recorded} keyed {@code <org>/<pool>}: a pool's reconcile often records several at once (scaled
 * up, node assigned, node registered), and one record carries them all.
 */
public record RecordedEvents(List<RecordedEvent> events) {

  public RecordedEvents {
    events = events == null ? List.of() : List.copyOf(events);
  }

  /** {@code events}, about any pools, as one record per pool key ({@code <org>/<pool>}), in their order. */
  public static Map<String, RecordedEvents> byPool(List<RecordedEvent> events) {
    Map<String, List<RecordedEvent>> grouped = new LinkedHashMap<>();
    for (RecordedEvent event : events) {
      grouped.computeIfAbsent(event.org() + "/" + event.pool(), k -> new ArrayList<>()).add(event);
    }
    Map<String, RecordedEvents> records = new LinkedHashMap<>();
    grouped.forEach((key, list) -> records.put(key, new RecordedEvents(list)));
    return records;
  }
}
