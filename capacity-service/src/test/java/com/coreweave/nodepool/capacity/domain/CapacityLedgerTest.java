package com.coreweave.nodepool.capacity.domain;

import static com.coreweave.nodepool.capacity.domain.Inputs.demand;
import static com.coreweave.nodepool.capacity.domain.Inputs.forget;
import static com.coreweave.nodepool.capacity.domain.Inputs.machine;
import static com.coreweave.nodepool.capacity.domain.Inputs.pool;
import static com.coreweave.nodepool.capacity.domain.Inputs.release;
import static com.coreweave.nodepool.capacity.domain.Inputs.size;
import static com.coreweave.nodepool.capacity.domain.Inputs.spot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.kit.faults.ArmedFault;
import com.coreweave.nodepool.kit.faults.FaultScope;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.FleetChangeRequested.Operation;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.resource.Conditions.Capacity;
import com.coreweave.nodepool.schema.resource.Conditions.Quota;
import com.coreweave.nodepool.schema.resource.CwEvent;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class CapacityLedgerTest {

    final PoolRef a = pool("a");
    final PoolRef b = pool("b");
    final PoolRef c = pool("c");
    final PoolRef s = spot("s");

    @Nested
    class Reasons {

        @Test
        void grantsEveryNodeWhenFreeMachinesSufficeAndSaysSoInTheReferenceWords() {
            LedgerRun run = new LedgerRun().with(size(4), demand(a, 3));

            CapacityChecked checked = run.checked(a);
            assertThat(checked.reason()).isEqualTo(Capacity.SUFFICIENT);
            assertThat(checked.message()).isEqualTo("Sufficient capacity available for the requested instance type.");
            assertThat(checked.grants())
                    .containsExactly(new Grant(machine(1), 1), new Grant(machine(2), 2), new Grant(machine(3), 3));
            assertThat(checked.queuedNodes()).isZero();
            assertThat(checked.queuePosition()).isNull();
            assertThat(checked.requestedNodes()).isEqualTo(3);
        }

        @Test
        void carriesTheQuotaDecisionItActedOnAndTellsOfANewOneThatChangesNothingElse() {
            LedgerRun run = new LedgerRun().with(size(4), demand(a, 3));
            assertThat(run.checked(a).quotaReason()).isEqualTo(Quota.UNDER);
            assertThat(run.checked(a).quotaMessage()).isEqualTo("NodePool is within instance type quota.");

            run.apply(new LedgerInput.Demand(
                    a.key().toString(),
                    new QuotaChecked(
                            a,
                            Quota.OVER,
                            5,
                            3,
                            3,
                            3,
                            false,
                            "NodePool targetNodes pushes you over quota",
                            Inputs.NOW)));

            assertThat(run.checked(a).quotaReason()).isEqualTo(Quota.OVER);
            assertThat(run.checked(a).quotaMessage()).isEqualTo("NodePool targetNodes pushes you over quota");
            assertThat(run.checked(a).grants()).hasSize(3);
        }

        @Test
        void grantsTheFreeOnesAndQueuesTheRestAsPartial() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 5));

            CapacityChecked checked = run.checked(a);
            assertThat(checked.reason()).isEqualTo(Capacity.PARTIAL);
            assertThat(checked.grants()).hasSize(2);
            assertThat(checked.queuedNodes()).isEqualTo(3);
            assertThat(checked.queuePosition()).isEqualTo(1);
            assertThat(checked.queueLength()).isEqualTo(1);
            assertThat(checked.message())
                    .isEqualTo("3 nodes queued, position 1 of 1 for gd-8xa100-i128 in US-EAST-04A");
        }

        @Test
        void queuesEverythingAsNoneAvailableWhenNothingIsFree() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 1), demand(b, 1));

            CapacityChecked checked = run.checked(b);
            assertThat(checked.reason()).isEqualTo(Capacity.NONE_AVAILABLE);
            assertThat(checked.grants()).isEmpty();
            assertThat(checked.message()).isEqualTo("1 node queued, position 1 of 1 for gd-8xa100-i128 in US-EAST-04A");
        }

        @Test
        void saysQueuedAwaitingCapacityOnAnyLaterEvaluationWhileItWaits() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 3));
            assertThat(run.checked(a).reason()).isEqualTo(Capacity.PARTIAL);

            run.apply(demand(b, 2));

            assertThat(run.checked(a).reason()).isEqualTo(Capacity.QUEUED_AWAITING_CAPACITY);
            assertThat(run.checked(b).reason()).isEqualTo(Capacity.NONE_AVAILABLE);
            assertThat(run.checked(b).message())
                    .isEqualTo("2 nodes queued, position 2 of 2 for gd-8xa100-i128 in " + "US-EAST-04A");
        }

        @Test
        void givesThePositionAmongAllWaitingPoolsOfTheLedger() {
            LedgerRun run = new LedgerRun().with(size(0));
            for (String name : List.of("p1", "p2", "p3", "p4", "p5")) {
                run.apply(demand(pool(name), name.equals("p3") ? 2 : 1));
            }

            assertThat(run.checked(pool("p3")).message())
                    .isEqualTo("2 nodes queued, position 3 of 5 for gd-8xa100-i128 in US-EAST-04A");
        }

        @Test
        void reportsInternalErrorWhenTheCheckFailsKeepingWhatThePoolHoldsAndChangingNothing() {
            LedgerRun run = new LedgerRun().with(size(3), demand(a, 1), demand(b, 1));
            // A stored ledger that breaks its invariant: b holds a machine the ledger does not have.
            run.stored.put(
                    LedgerKeys.held(Inputs.KEY, b.key().toString(), 99),
                    new HeldMachine(b.key().toString(), 9, 99, Inputs.NOW, null));
            run.state = run.reloaded();
            var machines = run.state.machines();
            var stored = new TreeMap<>(run.stored);

            run.apply(demand(b, 2));

            assertThat(run.checked(b))
                    .extracting(CapacityChecked::reason, CapacityChecked::grants)
                    .containsExactly(
                            Capacity.INTERNAL_ERROR, List.of(new Grant(machine(2), 2), new Grant(machine(9), 99)));
            assertThat(run.checked(b).message()).startsWith("Capacity check failed: ");
            assertThat(run.last.changed()).isFalse();
            assertThat(run.stored).isEqualTo(stored);
            assertThat(run.state.machines()).isEqualTo(machines);

            run.apply(demand(a, 2));
            assertThat(run.machinesOf(a))
                    .as("the next input finds the ledger as it was")
                    .containsExactly(machine(1), machine(3));
        }

        @Test
        void hasNoReasonForAPoolThatAsksForNothingAndHoldsNothing() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 0));

            assertThat(run.checked(a).reason()).isNull();
            assertThat(run.checked(a).message()).isNull();
        }

        @Test
        void ignoresADecisionOfAnOlderGeneration() {
            LedgerRun run = new LedgerRun().with(size(4), demand(pool("a", "default", 3), 2));

            run.apply(demand(pool("a", "default", 2), 4));

            assertThat(run.last.capacity()).isEmpty();
            assertThat(run.checked(a).grants()).hasSize(2);
        }
    }

    @Nested
    class Queue {

        @Test
        void servesWaitingPoolsInTheOrderTheyStartedWaiting() {
            LedgerRun run = new LedgerRun().with(size(0), demand(b, 2), demand(a, 1), demand(c, 1));

            run.apply(Inputs.fleet(Operation.ADD, 2, null));

            assertThat(run.checked(b).grants()).hasSize(2);
            assertThat(run.checked(a).grants()).isEmpty();
            assertThat(run.checked(a).queuePosition()).isEqualTo(1);
            assertThat(run.checked(c).queuePosition()).isEqualTo(2);
        }

        @Test
        void servesReservedDemandBeforeSpotDemandThatWaitedLonger() {
            LedgerRun run = new LedgerRun().with(size(0), demand(s, 1), demand(a, 1));
            assertThat(run.checked(a).queuePosition()).isEqualTo(1);
            assertThat(run.checked(s).queuePosition()).isEqualTo(2);

            run.apply(Inputs.fleet(Operation.ADD, 1, null));

            assertThat(run.checked(a).reason()).isEqualTo(Capacity.SUFFICIENT);
            assertThat(run.checked(s).grants()).isEmpty();
        }

        @Test
        void givesSpotPoolsOnlyCapacityNoReservedPoolWaitsFor() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 3), demand(s, 1));

            assertThat(run.checked(s).reason()).isEqualTo(Capacity.NONE_AVAILABLE);
            run.apply(Inputs.fleet(Operation.ADD, 2, null));

            assertThat(run.checked(a).reason()).isEqualTo(Capacity.SUFFICIENT);
            assertThat(run.checked(s).reason()).isEqualTo(Capacity.SUFFICIENT);
        }

        @Test
        void fillsTheQueueByItselfWhenTheFleetGrows() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 3));

            run.apply(size(3));

            assertThat(run.checked(a).reason()).isEqualTo(Capacity.SUFFICIENT);
            assertThat(run.machinesOf(a)).containsExactly(machine(1), machine(2), machine(3));
        }

        @Test
        void fillsTheQueueWhenAGrantIsReleased() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 2), demand(b, 1), demand(a, 1));
            assertThat(run.checked(a).grants()).hasSize(2);

            run.apply(release(a, run.grants(a).get(1), "ScaleDown"));

            assertThat(run.machinesOf(a)).containsExactly(machine(1));
            assertThat(run.machinesOf(b)).containsExactly(machine(2));
            assertThat(run.checked(b).grants().get(0).grantId()).isEqualTo(3);
            assertThat(run.checked(b).reason()).isEqualTo(Capacity.SUFFICIENT);
        }

        @Test
        void withdrawsTheQueueEntryOfAPoolWhoseDemandDropsSoThoseBehindMoveUp() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 1), demand(b, 2), demand(c, 1));
            assertThat(run.checked(c).queuePosition()).isEqualTo(2);

            run.apply(demand(b, 0));

            assertThat(run.checked(b).queuedNodes()).isZero();
            assertThat(run.checked(b).reason()).isNull();
            assertThat(run.checked(c).queuePosition()).isEqualTo(1);
            assertThat(run.checked(c).queueLength()).isEqualTo(1);
        }

        @Test
        void letsAPoolAskingForFewerKeepItsGrantsUntilTheProvisionerReleasesThem() {
            LedgerRun run = new LedgerRun().with(size(3), demand(a, 3), demand(b, 1));

            run.apply(demand(a, 1));

            assertThat(run.checked(a).grants()).hasSize(3);
            assertThat(run.checked(a).reason()).isEqualTo(Capacity.SUFFICIENT);
            assertThat(run.checked(b).grants()).isEmpty();
        }

        @Test
        void freesTheGrantsOfAForgottenPoolAndTombstonesIt() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 2), demand(b, 2));

            run.apply(forget(a));

            assertThat(run.last.capacity())
                    .contains(new LedgerDecision.PoolUpdate(a.key().toString(), null));
            assertThat(run.checked(a)).isNull();
            assertThat(run.machinesOf(b)).containsExactly(machine(1), machine(2));
            assertThat(run.state.pools()).doesNotContainKey(a.key().toString());
        }

        @Test
        void voidsTheGrantsOfAnEarlierIncarnationWhenThePoolIsCreatedAgain() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 2));
            PoolRef again = new PoolRef("demo", "a", "uid-a-2", 1, Inputs.ZONE, Inputs.TYPE, "default");

            run.apply(demand(again, 1));

            assertThat(run.checked(a).pool().uid()).isEqualTo("uid-a-2");
            assertThat(run.checked(a).grants()).containsExactly(new Grant(machine(1), 3));
            assertThat(run.state.count(Machine.Status.FREE)).isEqualTo(1);
        }
    }

    @Nested
    class Release {

        @Test
        void freesAGrantExactlyOnce() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 2), demand(a, 1));
            Grant released = run.grants(a).get(1);

            run.apply(release(a, released, "ScaleDown"));
            assertThat(run.state.count(Machine.Status.FREE)).isEqualTo(1);
            var afterFirst = run.state.machines();

            run.apply(release(a, released, "ScaleDown"));

            assertThat(run.last.capacity()).isEmpty();
            assertThat(run.state.machines()).isEqualTo(afterFirst);
        }

        @Test
        void ignoresALateReleaseOfAMachineGrantedAgainSince() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 1), demand(b, 1), demand(a, 0));
            Grant old = run.grants(a).get(0);
            run.apply(release(a, old, "ScaleDown"));
            assertThat(run.grants(b)).containsExactly(new Grant(old.machine(), 2));

            run.apply(release(a, old, "ScaleDown"));
            run.apply(release(b, old, "ScaleDown"));

            assertThat(run.grants(b)).containsExactly(new Grant(old.machine(), 2));
            assertThat(run.last.capacity()).isEmpty();
        }

        @Test
        void sendsAMachineTakenOutOfServiceToMaintenanceAndGrantsTheNextFreeOne() {
            LedgerRun run = new LedgerRun().with(size(4), demand(a, 2));
            Grant bad = run.grants(a).get(0);

            run.apply(release(a, bad, "Replaced"));

            assertThat(run.state.machines().get(bad.machine()).status()).isEqualTo(Machine.Status.MAINTENANCE);
            assertThat(run.machinesOf(a)).containsExactly(machine(2), machine(3));
            run.apply(release(a, run.grants(a).get(0), "Triaged"));
            run.apply(release(a, run.grants(a).get(0), "DeliverFailed"));
            assertThat(run.state.count(Machine.Status.MAINTENANCE)).isEqualTo(3);
            assertThat(run.checked(a))
                    .extracting(CapacityChecked::reason, CapacityChecked::queuedNodes)
                    .containsExactly(Capacity.QUEUED_AWAITING_CAPACITY, 1);
        }

        @Test
        void freesTheMachineOfADeletedNodeButHandsThePoolAnotherWhileOneIsFree() {
            LedgerRun run = new LedgerRun().with(size(3), demand(a, 1), demand(b, 1));
            Grant deleted = run.grants(a).get(0);

            run.apply(release(a, deleted, "Deleted"));
            assertThat(run.machinesOf(a)).containsExactly(machine(3));
            assertThat(run.state.machines().get(deleted.machine()).status()).isEqualTo(Machine.Status.FREE);

            run.apply(release(a, run.grants(a).get(0), "Deleted"));
            assertThat(run.machinesOf(a))
                    .as("the only free machine is the one it just left")
                    .containsExactly(deleted.machine());
        }

        @Test
        void ignoresAReleaseFromAnotherIncarnationOfThePool() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 1));
            PoolRef other = new PoolRef("demo", "a", "uid-other", 1, Inputs.ZONE, Inputs.TYPE, "default");

            run.apply(release(other, run.grants(a).get(0), "PoolDeleted"));

            assertThat(run.grants(a)).hasSize(1);
        }
    }

    @Nested
    class LargePool {

        @Test
        void aReleaseOfOneOfFiveThousandGrantsWritesTheHeadAndThatGrantsRecordAlone() {
            LedgerRun run = new LedgerRun().with(size(5_000), demand(a, 5_000), demand(a, 4_999));
            Grant released = run.grants(a).get(4_242);
            String key = LedgerKeys.held(Inputs.KEY, a.key().toString(), released.grantId());
            assertThat(run.stored).containsKey(key);

            run.apply(release(a, released, "ScaleDown"));

            assertThat(run.last.writes().records()).containsOnlyKeys(LedgerKeys.head(Inputs.KEY), key);
            assertThat(run.last.writes().records().get(key)).as("deleted").isNull();
            assertThat(run.last.capacity())
                    .singleElement()
                    .satisfies(update -> assertThat(update.checked().grants())
                            .as("listed as the ledger holds them when the record is written")
                            .isNull());
            assertThat(run.grants(a)).hasSize(4_999).doesNotContain(released);
            assertThat(run.reloaded().machines()).isEqualTo(run.state.machines());
        }
    }

    @Nested
    class InjectedFault {

        @Test
        void failsTheCheckOfAPoolInItsScopeWithInternalErrorUntilDisarmed() {
            InjectedFaults faults = new InjectedFaults(Set.of(CapacityLedger.CAPACITY_CHECK));
            FaultScope scope = new FaultScope(null, b.org(), b.pool());
            LedgerRun run = new LedgerRun(new CapacityLedger(10_000, 100, faults)).with(size(3), demand(b, 1));
            faults.arm(new ArmedFault(CapacityLedger.CAPACITY_CHECK, scope, null, null, "drill", "admin", Inputs.NOW));

            run.apply(demand(b, 2));
            assertThat(run.checked(b))
                    .extracting(CapacityChecked::reason, CapacityChecked::grants)
                    .containsExactly(Capacity.INTERNAL_ERROR, List.of(new Grant(machine(1), 1)));
            assertThat(run.checked(b).message()).contains("injected fault capacity-check@org=demo,pool=b");
            run.apply(demand(a, 1));
            assertThat(run.checked(a).reason()).as("another pool is checked").isEqualTo(Capacity.SUFFICIENT);

            faults.disarm(CapacityLedger.CAPACITY_CHECK, scope);
            run.apply(demand(b, 2));
            assertThat(run.checked(b).reason()).isEqualTo(Capacity.SUFFICIENT);
        }
    }

    @Nested
    class UnsoundStoredLedger {

        @Test
        void forgetsAPoolReadBackHoldingAMachineAnotherPoolHolds() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 1), demand(b, 1));
            run.stored.put(
                    LedgerKeys.held(Inputs.KEY, b.key().toString(), 99),
                    new HeldMachine(b.key().toString(), 1, 99, Inputs.NOW, null));
            run.state = run.reloaded();

            run.apply(demand(b, 2));
            assertThat(run.checked(b).reason()).isEqualTo(Capacity.INTERNAL_ERROR);
            assertThat(run.checked(b).message()).endsWith("demo/b holds " + machine(1) + ", which another pool holds");

            run.apply(forget(b));

            assertThat(run.checked(b)).isNull();
            assertThat(run.state.machines().get(machine(1)).allocation().pool()).isEqualTo("demo/a");
            assertThat(run.state.count(Machine.Status.FREE)).isEqualTo(2 - 1);
            assertThat(run.stored.keySet()).noneMatch(k -> k.contains("demo/b"));
        }

        @Test
        void undoesEveryGrantOfAnInputThatFailsHalfway() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 2), demand(b, 1), demand(c, 2));
            // c is read back holding a machine the ledger does not have: serving it fails, after b was served.
            run.stored.put(
                    LedgerKeys.held(Inputs.KEY, c.key().toString(), 99),
                    new HeldMachine(c.key().toString(), 9, 99, Inputs.NOW, null));
            run.state = run.reloaded();
            var machines = run.state.machines();
            var stored = new TreeMap<>(run.stored);

            run.apply(Inputs.fleet(Operation.ADD, 2, null));

            assertThat(run.last.changed()).isFalse();
            assertThat(run.stored).isEqualTo(stored);
            assertThat(run.state.machines()).isEqualTo(machines);
            assertThat(run.state.queue()).extracting(p -> p.ref().pool()).containsExactly("b", "c");
            run.apply(forget(c));
            run.apply(Inputs.fleet(Operation.ADD, 1, null));
            assertThat(run.machinesOf(b)).containsExactly(machine(3));
        }
    }

    @Nested
    class NothingChanged {

        @Test
        void storesAndSaysNothingForARepeatedDecisionWhoseDemandIsUnchanged() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 1), demand(b, 3), demand(a, 1));
            var stored = new TreeMap<>(run.stored);

            run.apply(demand(a, 1));

            assertThat(run.last.changed()).isFalse();
            assertThat(run.last.capacity()).isEmpty();
            assertThat(run.last.events()).isEmpty();
            assertThat(run.stored).isEqualTo(stored);
        }

        @Test
        void stillTellsAPoolThatWaitsOnTheFirstEvaluationAfterItsOwnDemand() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 1), demand(b, 3));
            assertThat(run.checked(b).reason()).isEqualTo(Capacity.PARTIAL);

            run.apply(demand(a, 1));

            assertThat(run.last.changed()).isTrue();
            assertThat(run.last.capacity())
                    .extracting(LedgerDecision.PoolUpdate::pool)
                    .containsExactly("demo/b");
            assertThat(run.checked(b).reason()).isEqualTo(Capacity.QUEUED_AWAITING_CAPACITY);
        }

        @Test
        void storesNothingForADuplicateReleaseOrARepeatedFleetChange() {
            LedgerInput add = Inputs.fleet(Operation.ADD, 2, null);
            LedgerRun run = new LedgerRun().with(add, demand(a, 2), demand(a, 1));
            Grant released = run.grants(a).get(1);
            run.apply(release(a, released, "ScaleDown"));
            long sequence = run.state.sequence();

            run.apply(release(a, released, "ScaleDown"));
            assertThat(run.last.changed()).isFalse();
            run.apply(add);
            assertThat(run.last.changed()).isFalse();

            assertThat(run.state.sequence()).isEqualTo(sequence);
        }

        @Test
        void namesOutputsByTheInputsThatChangedTheLedger() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 1), demand(a, 1), demand(a, 1), demand(a, 2));

            assertThat(run.events(CwEvent.CWNodeRequestQueued.reason()))
                    .extracting(e -> e.id())
                    .containsExactly(
                            "capacity-service/uid-a/demand-2/CWNodeRequestQueued",
                            "capacity-service/uid-a/demand-3/CWNodeRequestQueued");
        }
    }

    @Nested
    class Events {

        @Test
        void recordsANodeRequestWheneverDemandGrows() {
            LedgerRun run = new LedgerRun().with(size(2), demand(a, 1), demand(a, 4));

            assertThat(run.events(CwEvent.CWNodeRequestQueued.reason()))
                    .extracting(e -> e.message())
                    .containsExactly(
                            "Requested 1 node(s) of gd-8xa100-i128 in US-EAST-04A; 1 granted, 0 queued",
                            "Requested 3 node(s) of gd-8xa100-i128 in US-EAST-04A; 1 granted, 2 queued");
        }

        @Test
        void recordsInsufficientCapacityOncePerGeneration() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 2), demand(b, 1), demand(a, 3));
            assertThat(run.events(CwEvent.CWInsufficientCapacity.reason()))
                    .filteredOn(e -> e.pool().equals("a"))
                    .hasSize(1);

            run.apply(demand(pool("a", "default", 2), 4));

            assertThat(run.events(CwEvent.CWInsufficientCapacity.reason()))
                    .filteredOn(e -> e.pool().equals("a"))
                    .extracting(e -> e.id())
                    .containsExactly(
                            "capacity-service/uid-a/1/CWInsufficientCapacity",
                            "capacity-service/uid-a/2/CWInsufficientCapacity");
        }

        @Test
        void givesTheSameIdsWhenTheSameInputsAreReplayed() {
            LedgerRun first = new LedgerRun().with(size(1), demand(a, 2), demand(b, 1));
            LedgerRun second = new LedgerRun().with(size(1), demand(a, 2), demand(b, 1));

            assertThat(second.events)
                    .extracting(e -> e.id())
                    .containsExactlyElementsOf(
                            first.events.stream().map(e -> e.id()).toList());
        }
    }

    @Nested
    class SpotReclaim {

        @Test
        void asksBackExactlyTheSpotNodesReservedDemandNeedsMostRecentlyGrantedFirst() {
            LedgerRun run = new LedgerRun().with(size(4), demand(s, 4), demand(a, 2));

            assertThat(run.reclaims).hasSize(1);
            var reclaim = run.reclaims.get(0);
            assertThat(reclaim.pool()).isEqualTo(s);
            assertThat(reclaim.nodes()).containsExactly(machine(3), machine(4));
            assertThat(reclaim.reason())
                    .isEqualTo("2 node(s) of reserved demand wait for gd-8xa100-i128 in US-EAST-04A");
            assertThat(run.state.reservedDemandWaitsOnSpot()).isFalse();
        }

        @Test
        void neverAsksForTheSameNodeTwice() {
            LedgerRun run = new LedgerRun().with(size(3), demand(s, 3), demand(a, 1));
            assertThat(run.reclaims).hasSize(1);

            run.apply(demand(b, 1));
            run.apply(demand(c, 0));

            assertThat(run.reclaims).hasSize(2);
            assertThat(run.reclaims.get(1).nodes()).containsExactly(machine(2));
            assertThat(run.reclaims.stream().flatMap(r -> r.nodes().stream())).doesNotHaveDuplicates();
        }

        @Test
        void handsThePreemptedMachineToTheReservedDemandThatWaits() {
            LedgerRun run = new LedgerRun().with(size(2), demand(s, 2), demand(a, 1));
            Grant preempted = run.grants(s).get(1);

            run.apply(release(s, preempted, "Preempted"));

            assertThat(run.machinesOf(a)).containsExactly(preempted.machine());
            assertThat(run.checked(s).reason()).isEqualTo(Capacity.QUEUED_AWAITING_CAPACITY);
            assertThat(run.checked(s).queuedNodes()).isEqualTo(1);
            assertThat(run.reclaims).hasSize(1);
        }

        @Test
        void asksPerSpotPoolForItsOwnNodes() {
            PoolRef t = spot("t");
            LedgerRun run = new LedgerRun().with(size(2), demand(s, 1), demand(t, 1), demand(a, 2));

            assertThat(run.reclaims)
                    .extracting(r -> r.pool().pool(), r -> r.nodes())
                    .containsExactlyInAnyOrder(tuple("s", List.of(machine(1))), tuple("t", List.of(machine(2))));
        }

        @Test
        void takesOperatorReclaimsOutOfServiceOncePreempted() {
            LedgerRun run = new LedgerRun().with(size(3), demand(s, 3));

            run.apply(Inputs.fleet(Operation.RECLAIM_SPOT, 2, null));
            assertThat(run.last.fleetOutcome().machines()).containsExactly(machine(2), machine(3));
            assertThat(run.reclaims.get(0).nodes()).containsExactly(machine(2), machine(3));

            run.apply(release(s, run.grants(s).get(2), "Preempted"));

            assertThat(run.state.machines().get(machine(3)).status()).isEqualTo(Machine.Status.MAINTENANCE);
            assertThat(run.checked(s).grants()).hasSize(2);
        }

        @Test
        void countsWhatAPoolHoldsAsSpotOnceItsComputeClassTurnsSpot() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 1), demand(pool("a", "spot", 2), 1));

            run.apply(demand(b, 1));

            assertThat(run.reclaims).singleElement().satisfies(r -> {
                assertThat(r.pool().pool()).isEqualTo("a");
                assertThat(r.nodes()).containsExactly(machine(1));
            });
        }

        @Test
        void asksForNothingWhenNoSpotPoolHoldsCapacity() {
            LedgerRun run = new LedgerRun().with(size(1), demand(a, 1), demand(b, 1));

            assertThat(run.reclaims).isEmpty();
            assertThat(run.state.reservedDemandWaiting()).isEqualTo(1);
            assertThat(run.state.reservedDemandWaitsOnSpot()).isFalse();
        }
    }
}
