package com.coreweave.nodepool.capacity.domain;

import static com.coreweave.nodepool.capacity.domain.Inputs.demand;
import static com.coreweave.nodepool.capacity.domain.Inputs.fleet;
import static com.coreweave.nodepool.capacity.domain.Inputs.machine;
import static com.coreweave.nodepool.capacity.domain.Inputs.pool;
import static com.coreweave.nodepool.capacity.domain.Inputs.size;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.FleetChangeRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolRef;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class FleetChangesTest {

    final PoolRef a = pool("a");

    @Test
    void namesMachinesDeterministicallyAndDnsSafe() {
        LedgerRun run = new LedgerRun().with(size(3));

        assertThat(run.state.machines().keySet())
                .containsExactly(
                        "us-east-04a-gd-8xa100-i128-0001",
                        "us-east-04a-gd-8xa100-i128-0002",
                        "us-east-04a-gd-8xa100-i128-0003");
        assertThat(run.state.machines().keySet()).allMatch(n -> n.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?"));
    }

    @Test
    void setsTheSizeIdempotently() {
        LedgerRun run = new LedgerRun().with(size(24));
        assertThat(run.last.fleetOutcome().added()).isEqualTo(24);

        run.apply(size(24));

        assertThat(run.last.fleetOutcome().applied()).isTrue();
        assertThat(run.last.fleetOutcome().added()).isZero();
        assertThat(run.last.fleetOutcome().retired()).isZero();
        assertThat(run.state.total()).isEqualTo(24);
    }

    @Test
    void shrinksByRetiringFreeMachinesOnlyAndSaysHowManyCouldNotBeRetiredYet() {
        LedgerRun run = new LedgerRun().with(size(4), demand(a, 3));

        run.apply(size(0));

        FleetOutcome outcome = run.last.fleetOutcome();
        assertThat(outcome.retired()).isEqualTo(1);
        assertThat(outcome.notRetired()).isEqualTo(3);
        assertThat(outcome.machines()).containsExactly(machine(4));
        assertThat(outcome.message()).contains("3 could not be retired yet");
        assertThat(run.grants(a)).hasSize(3);
    }

    @Test
    void bringsRetiredMachinesBackFirstWhenGrowingAgain() {
        LedgerRun run = new LedgerRun().with(size(4), size(2));

        run.apply(size(5));

        assertThat(run.last.fleetOutcome().machines()).containsExactly(machine(3), machine(4), machine(5));
        assertThat(run.state.machines()).hasSize(5);
    }

    @Test
    void refusesToRetireAMachineAPoolHolds() {
        LedgerRun run = new LedgerRun().with(size(2), demand(a, 1));

        run.apply(fleet(Operation.REMOVE, null, List.of(machine(1))));

        assertThat(run.last.fleetOutcome().code()).isEqualTo(FleetOutcome.CONFLICT);
        assertThat(run.last.fleetOutcome().message()).contains("allocated to pool demo/a");
        assertThat(run.state.machines().get(machine(1)).status()).isEqualTo(Machine.Status.ALLOCATED);
    }

    @Test
    void retiresANamedFreeMachineAndRefusesAnUnknownOne() {
        LedgerRun run = new LedgerRun().with(size(2));

        run.apply(fleet(Operation.REMOVE, null, List.of(machine(2))));
        assertThat(run.state.machines().get(machine(2)).status()).isEqualTo(Machine.Status.RETIRED);
        assertThat(run.state.total()).isEqualTo(1);

        run.apply(fleet(Operation.REMOVE, null, List.of("no-such-machine")));
        assertThat(run.last.fleetOutcome().code()).isEqualTo(FleetOutcome.NOT_FOUND);
    }

    @Test
    void takesFreeMachinesToMaintenanceAndBackIntoTheQueue() {
        LedgerRun run = new LedgerRun().with(size(2));
        run.apply(fleet(Operation.MAINTENANCE, null, List.of(machine(1), machine(2))));
        run.apply(demand(a, 1));
        assertThat(run.checked(a).grants()).isEmpty();

        run.apply(fleet(Operation.RETURN, null, List.of(machine(2))));

        assertThat(run.machinesOf(a)).containsExactly(machine(2));
        assertThat(run.state.machines().get(machine(1)).status()).isEqualTo(Machine.Status.MAINTENANCE);
    }

    @Test
    void refusesMaintenanceOfAnAllocatedMachineWithoutTouchingTheOthers() {
        LedgerRun run = new LedgerRun().with(size(2), demand(a, 1));

        run.apply(fleet(Operation.MAINTENANCE, null, List.of(machine(2), machine(1))));

        assertThat(run.last.fleetOutcome().code()).isEqualTo(FleetOutcome.CONFLICT);
        assertThat(run.state.machines().get(machine(2)).status()).isEqualTo(Machine.Status.FREE);
    }

    @Test
    void appliesARepeatedRequestOnlyOnce() {
        LedgerInput add = fleet(Operation.ADD, 2, null);
        LedgerRun run = new LedgerRun().with(add);

        LedgerDecision again = run.apply(add);

        assertThat(again.fleetOutcome().added()).isEqualTo(2);
        assertThat(run.state.machines()).hasSize(2);
    }

    @Test
    void holds50000MachinesAndAnInputThereWritesOnlyThePoolItChangedTheMachinesItGrantedAndTheHead() {
        LedgerRun run = new LedgerRun(50_000).with(size(50_000));
        for (int i = 0; i < 2000; i++) {
            run.apply(demand(
                    new PoolRef(
                            "org-with-a-long-name-" + i % 10,
                            "a-pool-with-a-rather-long-name-" + i,
                            UUID.randomUUID().toString(),
                            1,
                            Inputs.ZONE,
                            Inputs.TYPE,
                            i % 2 == 0 ? "default" : "spot"),
                    20));
        }
        PoolRef one = pool("one-more");

        run.apply(demand(one, 5));

        assertThat(run.state.count(Machine.Status.ALLOCATED)).isEqualTo(40_005);
        assertThat(run.machinesOf(one))
                .containsExactly(machine(40_001), machine(40_002), machine(40_003), machine(40_004), machine(40_005));
        String key = one.key().toString();
        assertThat(run.last.writes().records().keySet())
                .containsExactlyInAnyOrder(
                        LedgerKeys.head(Inputs.KEY),
                        LedgerKeys.pool(Inputs.KEY, key),
                        LedgerKeys.held(Inputs.KEY, key, 40_001),
                        LedgerKeys.held(Inputs.KEY, key, 40_002),
                        LedgerKeys.held(Inputs.KEY, key, 40_003),
                        LedgerKeys.held(Inputs.KEY, key, 40_004),
                        LedgerKeys.held(Inputs.KEY, key, 40_005));
        int bytes = run.last.writes().records().values().stream()
                .mapToInt(r -> LedgerRun.SERDE.serializer().serialize("ledgers", r).length)
                .sum();
        assertThat(bytes).isLessThan(1_500);
    }

    @Test
    void writesAChangesOutcomeAfterTheLedgerItLeadsToForTheAdminCallThatWaitsForIt() {
        LedgerRun run = new LedgerRun().with(size(3));

        run.apply(Inputs.fleet(Operation.REMOVE, null, List.of(machine(3))));

        List<String> order = new ArrayList<>();
        run.last.writes().forEach((key, record) -> order.add(key));
        assertThat(order).contains(LedgerKeys.head(Inputs.KEY), LedgerKeys.machine(Inputs.KEY, 3));
        assertThat(order.get(order.size() - 1)).startsWith(LedgerKeys.changes(Inputs.KEY));
    }

    @Test
    void refusesToGrowBeyondTheMostMachinesALedgerHolds() {
        LedgerRun run = new LedgerRun(5).with(size(4));

        run.apply(size(6));

        assertThat(run.last.fleetOutcome().code()).isEqualTo(FleetOutcome.INVALID);
        assertThat(run.state.machines()).hasSize(4);
    }
}
