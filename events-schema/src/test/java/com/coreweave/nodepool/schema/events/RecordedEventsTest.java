package com.coreweave.nodepool.schema.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.resource.CwEvent;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordedEventsTest {

  static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  static RecordedEvent queued(String pool) {
    return RecordedEvent.ofPool(new PoolRef("demo", pool, "uid-" + pool, 1, "US-EAST-04A", "gd-8xa100-i128",
        "default"), CwEvent.CWNodeRequestQueued, "queued", "r-1", "capacity-service", T0);
  }

  @Test
  void aLedgerDecisionAboutSeveralPoolsIsOneRecordPerPoolInTheOrderRecorded() {
    RecordedEvent a1 = queued("a");
    RecordedEvent b1 = queued("b");
    RecordedEvent a2 = RecordedEvent.ofPool(new PoolRef("demo", "a", "uid-a", 1, "US-EAST-04A", "gd-8xa100-i128",
        "default"), CwEvent.CWInsufficientCapacity, "short", "r-1", "capacity-service", T0);

    var records = RecordedEvents.byPool(List.of(a1, b1, a2));

    assertThat(records).containsOnlyKeys("demo/a", "demo/b");
    assertThat(records.keySet()).containsExactly("demo/a", "demo/b");
    assertThat(records.get("demo/a").events()).containsExactly(a1, a2);
    assertThat(records.get("demo/b").events()).containsExactly(b1);
  }
}
