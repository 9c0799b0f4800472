package com.coreweave.nodepool.capacity.domain;

import static com.coreweave.nodepool.capacity.domain.Inputs.demand;
import static com.coreweave.nodepool.capacity.domain.Inputs.machine;
import static com.coreweave.nodepool.capacity.domain.Inputs.pool;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.FleetChangeRequested.Operation;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.resource.Conditions.Capacity;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ledger as the {@code ledgers} store holds it: a record per key, readable across versions. A service upgraded
 * on a changelog written by the version that stored each ledger whole keeps every grant, queue place and remembered
 * fleet change, and its first change writes the ledger out record by record.
 */
class StoredLedgerTest {

  /** Stored whole, by the version whose pools kept their whole last {@code capacity-checked} ("published"). */
  static final String EARLIER = """
      {"zone":"US-EAST-04A","instanceType":"gd-8xa100-i128","sequence":4,"lastGrantId":1,"lastTicket":2,
      "machines":{"us-east-04a-gd-8xa100-i128-0001":{"name":"us-east-04a-gd-8xa100-i128-0001","index":1,
      "status":"ALLOCATED","allocation":{"pool":"demo/a","poolUid":"uid-a","spot":false,"grantId":1,
      "grantedAt":"2026-11-22T10:00:02Z"}},"us-east-04a-gd-8xa100-i128-0002":{"name":
      "us-east-04a-gd-8xa100-i128-0002","index":2,"status":"MAINTENANCE"}},
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
      "fleetChanges":[{"requestId":"req-1","operation":"SET_SIZE","message":"2 machine(s) added to \
      US-EAST-04A/gd-8xa100-i128","added":2,"retired":0,"notRetired":0,
      "machines":["us-east-04a-gd-8xa100-i128-0001","us-east-04a-gd-8xa100-i128-0002"],
      "at":"2026-11-22T10:00:01Z"}]}
      """;

  @Test
  void readsALedgerStoredWholeAndPublishesNothingAgainForARepeatedDecision() {
    LedgerRun run = upgraded();

    assertThat(run.state.pools().get("demo/b").publishedReason()).isEqualTo(Capacity.QUEUED_AWAITING_CAPACITY);
    assertThat(run.state.machines().get(machine(1)).allocation().pool()).isEqualTo("demo/a");
    assertThat(run.state.status(2)).isEqualTo(Machine.Status.MAINTENANCE);
    assertThat(run.state.fleetChange("req-1")).isPresent();

    // The stored ledger predates the quota verdict a decision carries on: the first one after the upgrade tells it.
    run.apply(demand(pool("b"), 1));
    assertThat(run.last.capacity()).singleElement().satisfies(u -> assertThat(u.checked().quotaReason())
        .isEqualTo("Under"));
    run.apply(demand(pool("b"), 1));

    assertThat(run.last.changed()).isFalse();
    assertThat(run.last.capacity()).isEmpty();
  }

  @Test
  void writesTheLedgerOutRecordByRecordOnItsFirstChange() {
    LedgerRun run = upgraded();

    run.apply(Inputs.fleet(Operation.RETURN, null, List.of(machine(2))));

    assertThat(run.grants(pool("b"))).containsExactly(new Grant(machine(2), 2));
    assertThat(((LedgerHead) run.stored.get(LedgerKeys.head(Inputs.KEY))).legacy()).isNull();
    assertThat(run.stored).containsKeys(LedgerKeys.pool(Inputs.KEY, "demo/a"), LedgerKeys.pool(Inputs.KEY, "demo/b"));
    Ledger read = run.reloaded();
    assertThat(read.machines()).isEqualTo(run.state.machines());
    assertThat(read.pools()).isEqualTo(run.state.pools());
    assertThat(read.fleetChanges()).extracting(FleetOutcome::requestId).hasSize(2).startsWith("req-1");
    assertThat(read.sequence()).isEqualTo(5);
  }

  private static LedgerRun upgraded() {
    LedgerRun run = new LedgerRun();
    LedgerHead head = (LedgerHead) LedgerRun.SERDE.deserializer().deserialize("ledgers",
        EARLIER.getBytes(StandardCharsets.UTF_8));
    run.stored.put(LedgerKeys.head(Inputs.KEY), head);
    run.state = Ledger.load(Inputs.KEY, head, List.of());
    return run;
  }
}
