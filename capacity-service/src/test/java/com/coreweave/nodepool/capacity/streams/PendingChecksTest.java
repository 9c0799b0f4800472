package com.coreweave.nodepool.capacity.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.capacity.domain.CapacityLedger;
import com.coreweave.nodepool.capacity.domain.Inputs;
import com.coreweave.nodepool.capacity.domain.Ledger;
import com.coreweave.nodepool.capacity.domain.LedgerDecision;
import com.coreweave.nodepool.capacity.domain.LedgerInput;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** One {@code capacity-checked} per pool and commit, its last decision, listing what the ledger holds then. */
class PendingChecksTest {

    static final ZoneTypeKey KEY = new ZoneTypeKey("US-EAST-04A", "gd-8xa100-i128");
    static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    static final PoolRef BIG = pool("big");
    static final PoolRef NEXT = pool("next");

    final CapacityLedger capacity = new CapacityLedger(10_000, 100);
    final Ledger ledger = Ledger.empty(KEY);
    final PendingChecks pending = new PendingChecks();
    Instant clock = T0;

    @Test
    void aPoolDecidedSeveralTimesInACommitLeavesItsLastDecisionListingWhatItHoldsAtTheCommit() {
        apply(fleet(3));
        apply(demand(BIG, 3));
        apply(demand(NEXT, 1));
        List<Grant> held = pending.take().get(0).getValue().grants();

        apply(demand(BIG, 1));
        apply(release(held.get(2)));
        apply(release(held.get(1)));

        List<Map.Entry<String, CapacityChecked>> written = pending.take();
        assertThat(written)
                .as("in the order last decided")
                .extracting(Map.Entry::getKey)
                .containsExactly("demo/next", "demo/big");
        assertThat(written.get(0).getValue().grants())
                .extracting(Grant::machine)
                .containsExactly(held.get(2).machine());
        assertThat(written.get(1).getValue().grants()).containsExactly(held.get(0));
        assertThat(written)
                .extracting(e -> e.getValue().checkedAt())
                .as("one moment: the commit's latest decision")
                .containsOnly(clock);
        assertThat(pending.take()).isEmpty();
    }

    @Test
    void releasingEveryGrantOfABigPoolOverManyCommitsShowsTheLedgerAsAPerInputReaderSeesItAtEachCommit() {
        apply(fleet(600));
        apply(demand(BIG, 500));
        apply(demand(NEXT, 200));
        List<Grant> grants = pending.take().stream()
                .filter(e -> e.getKey().equals("demo/big"))
                .findFirst()
                .orElseThrow()
                .getValue()
                .grants();
        apply(demand(BIG, 0));
        pending.take();
        Map<String, List<Grant>> perInput = new TreeMap<>();
        Map<String, List<Grant>> perCommit = new TreeMap<>();

        int written = 0;
        for (int i = 0; i < grants.size(); i++) {
            for (LedgerDecision.PoolUpdate update :
                    apply(release(grants.get(i))).capacity()) {
                perInput.put(update.pool(), ledger.withGrants(update.checked()).grants());
            }
            if (i % 100 == 99) {
                List<Map.Entry<String, CapacityChecked>> commit = pending.take();
                written += commit.size();
                commit.forEach(e -> perCommit.put(e.getKey(), e.getValue().grants()));
                assertThat(perCommit).as("after release %d", i + 1).isEqualTo(perInput);
            }
        }

        assertThat(written)
                .as("five commits: both pools in the first (the next one is served), the big one after")
                .isEqualTo(6);
        assertThat(perInput.get("demo/big")).isEmpty();
        assertThat(perInput.get("demo/next")).hasSize(200);
    }

    @Test
    void aTombstoneTakesAHeldDecisionsPlaceAndItsEventsGoOnTheirOwn() {
        RecordedEvent event = event("queued");
        CapacityChecked checked = checked(BIG, T0);

        assertThat(pending.hold("demo/big", ledger, checked, List.of(event))).isEmpty();
        assertThat(pending.hold("demo/big", ledger, null, List.of())).containsExactly(event);

        assertThat(pending.take())
                .singleElement()
                .satisfies(e -> assertThat(e.getValue()).isNull());
    }

    @Test
    void aDecisionCarriesTheEventsOfTheOnesItReplacesUpToARecordsWorth() {
        List<RecordedEvent> first = IntStream.range(0, Limits.MAX_EVENTS_PER_RECORD - 1)
                .mapToObj(i -> event("e" + i))
                .toList();
        RecordedEvent second = event("second");
        RecordedEvent third = event("third");

        assertThat(pending.hold("demo/big", ledger, checked(BIG, T0), first)).isEmpty();
        assertThat(pending.hold("demo/big", ledger, checked(BIG, T0), List.of(second)))
                .isEmpty();
        assertThat(pending.hold("demo/big", ledger, checked(BIG, T0), List.of(third)))
                .as("beyond a record's worth")
                .hasSize(Limits.MAX_EVENTS_PER_RECORD);

        assertThat(pending.take().get(0).getValue().events()).containsExactly(third);
    }

    private LedgerDecision apply(LedgerInput input) {
        clock = clock.plusSeconds(1);
        LedgerDecision decision = capacity.apply(ledger, input, clock);
        Map<String, List<RecordedEvent>> events = new HashMap<>();
        decision.events()
                .forEach(e -> events.computeIfAbsent("demo/" + e.pool(), k -> new ArrayList<>())
                        .add(e));
        decision.capacity()
                .forEach(update -> pending.hold(
                        update.pool(), ledger, update.checked(), events.getOrDefault(update.pool(), List.of())));
        return decision;
    }

    private static PoolRef pool(String name) {
        return new PoolRef("demo", name, "uid-" + name, 1, KEY.zone(), KEY.instanceType(), "default");
    }

    private static LedgerInput demand(PoolRef pool, int admitted) {
        return new LedgerInput.Demand(pool.key().toString(), Inputs.quota(pool, admitted, T0));
    }

    private static LedgerInput release(Grant grant) {
        return new LedgerInput.Release(
                new NodeFact.NodeRemoved(BIG, new Node("v1", "Node", null, null, null), grant, "PoolDeleted", T0));
    }

    private static LedgerInput fleet(int machines) {
        return new LedgerInput.FleetChange(new FleetChangeRequested(
                "size-" + machines,
                KEY.zone(),
                KEY.instanceType(),
                FleetChangeRequested.Operation.SET_SIZE,
                machines,
                null,
                T0));
    }

    private static CapacityChecked checked(PoolRef pool, Instant at) {
        return new CapacityChecked(pool, "Sufficient", 0, null, 0, null, null, null, at);
    }

    private static RecordedEvent event(String id) {
        return RecordedEvent.ofPool(BIG, CwEvent.CWNodeRequestQueued, "Requested", id, CapacityLedger.COMPONENT, T0);
    }
}
