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
 * on a changelog written by the version that stored each ledger whole, or by the one whose pool records listed the
 * machines they hold, keeps every grant, queue place and remembered fleet change, and its first change writes the
 * ledger out in this version's layout: a record per held machine.
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
    assertThat(run.stored).containsKeys(LedgerKeys.pool(Inputs.KEY, "demo/a"), LedgerKeys.pool(Inputs.KEY, "demo/b"),
        LedgerKeys.held(Inputs.KEY, "demo/a", 1), LedgerKeys.held(Inputs.KEY, "demo/b", 2));
    Ledger read = run.reloaded();
    assertThat(read.machines()).isEqualTo(run.state.machines());
    assertThat(read.pools()).isEqualTo(run.state.pools());
    assertThat(read.fleetChanges()).extracting(FleetOutcome::requestId).hasSize(2).startsWith("req-1");
    assertThat(read.sequence()).isEqualTo(5);
  }

  /** Stored record by record by the version whose pool records listed the machines they hold ("held"). */
  static final String POOL_LISTING_ITS_MACHINES = """
      {"kind":"Pool","ref":{"org":"demo","pool":"a","uid":"uid-a","generation":1,"zone":"US-EAST-04A",
      "instanceType":"gd-8xa100-i128","computeClass":"default"},"demand":1,"insufficientReported":0,
      "publishedReason":"Sufficient","held":[{"machine":1,"grantId":1,"grantedAt":"2026-11-22T10:00:02Z"},
      {"machine":3,"grantId":2,"grantedAt":"2026-11-22T10:00:02Z","reclaim":"OPERATOR"}],"quotaReason":"Under",
      "quotaMessage":"NodePool is within instance type quota."}
      """;
  static final String ITS_HEAD = """
      {"kind":"Head","zone":"US-EAST-04A","instanceType":"gd-8xa100-i128","sequence":2,"lastGrantId":2,
      "lastTicket":0,"machineCount":3,"fleetChangesRecorded":0}
      """;

  @Test
  void readsAPoolRecordThatListsItsMachinesAndWritesThemApartWithTheLedgersFirstChange() {
    LedgerRun run = new LedgerRun();
    LedgerHead head = (LedgerHead) read(ITS_HEAD);
    LedgerRecord pool = read(POOL_LISTING_ITS_MACHINES);
    run.stored.put(LedgerKeys.head(Inputs.KEY), head);
    run.stored.put(LedgerKeys.pool(Inputs.KEY, "demo/a"), pool);
    run.state = Ledger.load(Inputs.KEY, head, List.of(pool));
    assertThat(run.state.machines().get(machine(3)).allocation().reclaim()).isEqualTo(Machine.Reclaim.OPERATOR);
    assertThat(run.state.count(Machine.Status.FREE)).isEqualTo(1);

    run.apply(Inputs.release(pool("a"), new Grant(machine(1), 1), "ScaleDown"));

    assertThat(run.grants(pool("a"))).containsExactly(new Grant(machine(3), 2));
    assertThat(new String(LedgerRun.SERDE.serializer().serialize("ledgers",
        run.stored.get(LedgerKeys.pool(Inputs.KEY, "demo/a"))), StandardCharsets.UTF_8)).doesNotContain("held");
    assertThat(run.stored).containsKey(LedgerKeys.held(Inputs.KEY, "demo/a", 2))
        .doesNotContainKey(LedgerKeys.held(Inputs.KEY, "demo/a", 1));
    Ledger read = run.reloaded();
    assertThat(read.machines()).isEqualTo(run.state.machines());
    assertThat(read.pools()).isEqualTo(run.state.pools());
  }

  private static LedgerRecord read(String json) {
    return LedgerRun.SERDE.deserializer().deserialize("ledgers", json.getBytes(StandardCharsets.UTF_8));
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
