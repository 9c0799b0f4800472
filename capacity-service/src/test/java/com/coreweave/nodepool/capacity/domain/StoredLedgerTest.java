package com.coreweave.nodepool.capacity.domain;

import static com.coreweave.nodepool.capacity.domain.Inputs.demand;
import static com.coreweave.nodepool.capacity.domain.Inputs.pool;
import static com.coreweave.nodepool.capacity.domain.Inputs.size;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.resource.Conditions.Capacity;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The ledger as the {@code ledgers} store holds it: one record, under the broker's limit, readable across versions. */
class StoredLedgerTest {

  static final JsonSerde<LedgerState> SERDE = JsonSerde.of(LedgerState.class);

  @Test
  void keepsALedgerOfOneNodePoolsOnEveryMachineUnderTheBrokersDefaultRecordLimit() {
    LedgerRun run = new LedgerRun(1000);
    for (int i = 0; i < 50; i++) {
      run.with(size(900), size(1000));
    }
    for (int i = 0; i < 1000; i++) {
      PoolRef pool = new PoolRef("org-with-a-long-name-" + i % 10, "a-pool-with-a-rather-long-name-" + i,
          UUID.randomUUID().toString(), 1, Inputs.ZONE, Inputs.TYPE, i % 2 == 0 ? "default" : "spot");
      run.apply(demand(pool, 1));
    }

    byte[] stored = SERDE.serializer().serialize("ledgers", run.state);
    assertThat(run.state.count(Machine.Status.ALLOCATED)).isEqualTo(1000);
    assertThat(run.state.fleetChanges()).hasSize(100);
    assertThat(stored.length).isLessThan(1_000_000);
  }

  @Test
  void readsALedgerStoredWithWholePublishedRecordsAndPublishesNothingAgain() {
    // Stored by the version that kept each pool's whole last capacity-checked ("published"), not only its reason.
    String earlier = """
        {"zone":"US-EAST-04A","instanceType":"gd-8xa100-i128","sequence":4,"lastGrantId":1,"lastTicket":2,
        "machines":{"us-east-04a-gd-8xa100-i128-0001":{"name":"us-east-04a-gd-8xa100-i128-0001","index":1,
        "status":"ALLOCATED","allocation":{"pool":"demo/a","poolUid":"uid-a","spot":false,"grantId":1,
        "grantedAt":"2026-11-22T10:00:02Z"}}},
        "pools":{"demo/a":{"ref":{"org":"demo","pool":"a","uid":"uid-a","generation":1,"zone":"US-EAST-04A",
        "instanceType":"gd-8xa100-i128","computeClass":"default"},"demand":1,"insufficientReported":0,
        "published":{"pool":{"org":"demo","pool":"a","uid":"uid-a","generation":1,"zone":"US-EAST-04A",
        "instanceType":"gd-8xa100-i128","computeClass":"default"},"reason":"Sufficient","requestedNodes":1,
        "grants":[{"machine":"us-east-04a-gd-8xa100-i128-0001","grantId":1}],"queuedNodes":0,
        "message":"Sufficient capacity available for the requested instance type.",
        "checkedAt":"2026-11-22T10:00:02Z"}},
        "demo/b":{"ref":{"org":"demo","pool":"b","uid":"uid-b","generation":1,"zone":"US-EAST-04A",
        "instanceType":"gd-8xa100-i128","computeClass":"default"},"demand":1,"ticket":2,
        "waitingSince":"2026-11-22T10:00:03Z","insufficientReported":1,
        "published":{"pool":{"org":"demo","pool":"b","uid":"uid-b","generation":1,"zone":"US-EAST-04A",
        "instanceType":"gd-8xa100-i128","computeClass":"default"},"reason":"QueuedAwaitingCapacity",
        "requestedNodes":1,"grants":[],"queuedNodes":1,"queuePosition":1,"queueLength":1,
        "message":"1 node queued, position 1 of 1 for gd-8xa100-i128 in US-EAST-04A",
        "checkedAt":"2026-11-22T10:00:04Z"}}},
        "fleetChanges":[{"requestId":"req-1","operation":"SET_SIZE","message":"1 machine(s) added to \
        US-EAST-04A/gd-8xa100-i128","added":1,"retired":0,"notRetired":0,
        "machines":["us-east-04a-gd-8xa100-i128-0001"],"at":"2026-11-22T10:00:01Z"}]}
        """;
    LedgerRun run = new LedgerRun();
    run.state = SERDE.deserializer().deserialize("ledgers", earlier.getBytes(StandardCharsets.UTF_8));
    assertThat(run.state.pools().get("demo/b").publishedReason()).isEqualTo(Capacity.QUEUED_AWAITING_CAPACITY);

    run.apply(demand(pool("b"), 1));

    assertThat(run.last.changed()).isFalse();
    assertThat(run.last.capacity()).isEmpty();
  }
}
