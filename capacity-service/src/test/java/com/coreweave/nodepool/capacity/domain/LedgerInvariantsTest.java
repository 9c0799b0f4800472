package com.coreweave.nodepool.capacity.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.FleetChangeRequested.Operation;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.PoolRef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Property-style: random sequences of demand, releases (also duplicated and late ones), forgotten pools and fleet
 * changes keep the ledger's invariants after every input, as a reader of its topics sees them; the records each input
 * wrote always read back as the ledger in memory (what an input changed is all it writes, and enough); and once the
 * provisioner has released what it was asked and the fleet suffices, nothing stays queued.
 */
class LedgerInvariantsTest {

    /** Why the provisioner releases grants: some free the machine, some take it out of service. */
    static final List<String> CAUSES =
            List.of("ScaleDown", "BootFailed", "Deleted", "Replaced", "Triaged", "DeliverFailed");

    private static final int STEPS = 300;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233})
    void invariantsHoldOverRandomInputs(long seed) {
        Random random = new Random(seed);
        LedgerRun run = new LedgerRun();
        List<PoolRef> pools = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            pools.add(Inputs.pool("p" + i, i % 3 == 2 ? "spot" : "default", 1));
        }
        List<Grant> released = new ArrayList<>();

        for (int step = 0; step < STEPS; step++) {
            long grantedBefore = run.state.lastGrantId();
            run.apply(randomInput(random, run, pools, released));
            assertReadsBackAsWritten(run, "seed " + seed + ", step " + step);
            if (step % 2 == 1) {
                // Half the steps go on from the ledger read back, as a restarted service would.
                run.state = run.reloaded();
            }
            assertInvariants(run, grantedBefore, "seed " + seed + ", step " + step);
        }

        drain(run);
        assertThat(run.published.values())
                .as("seed %d: queued after the fleet grew", seed)
                .allMatch(c -> c.queuedNodes() == 0);
        assertThat(run.state.queue()).isEmpty();
    }

    private static LedgerInput randomInput(Random random, LedgerRun run, List<PoolRef> pools, List<Grant> released) {
        int dice = random.nextInt(100);
        PoolRef pool = pools.get(random.nextInt(pools.size()));
        if (dice < 35) {
            return Inputs.demand(pool, random.nextInt(8));
        }
        if (dice < 55) {
            // The provisioner releases a grant: beyond demand, a failed boot, a deleted node, one out of service.
            List<Map.Entry<String, CapacityChecked>> holders = run.published.entrySet().stream()
                    .filter(e -> !e.getValue().grants().isEmpty())
                    .toList();
            if (holders.isEmpty()) {
                return Inputs.size(random.nextInt(12));
            }
            CapacityChecked holder = holders.get(random.nextInt(holders.size())).getValue();
            Grant grant = holder.grants().get(random.nextInt(holder.grants().size()));
            released.add(grant);
            return Inputs.release(holder.pool(), grant, CAUSES.get(random.nextInt(CAUSES.size())));
        }
        if (dice < 62 && !released.isEmpty()) {
            Grant late = released.get(random.nextInt(released.size()));
            return Inputs.release(pool, late, "ScaleDown");
        }
        if (dice < 67) {
            // The pool is deleted; the next demand under its name is a new incarnation.
            pools.set(
                    pools.indexOf(pool),
                    new PoolRef(
                            "demo", pool.pool(), pool.uid() + "+", 1, Inputs.ZONE, Inputs.TYPE, pool.computeClass()));
            return Inputs.forget(pool);
        }
        String machine = Inputs.machine(1 + random.nextInt(14));
        return switch (random.nextInt(6)) {
            case 0 -> Inputs.size(random.nextInt(14));
            case 1 -> Inputs.fleet(Operation.ADD, 1 + random.nextInt(3), null);
            case 2 -> Inputs.fleet(Operation.REMOVE, null, List.of(machine));
            case 3 -> Inputs.fleet(Operation.MAINTENANCE, null, List.of(machine));
            case 4 -> Inputs.fleet(Operation.RETURN, null, List.of(machine));
            default -> Inputs.fleet(Operation.RECLAIM_SPOT, 1 + random.nextInt(2), null);
        };
    }

    private static void assertReadsBackAsWritten(LedgerRun run, String where) {
        Ledger live = run.state;
        Ledger read = run.reloaded();
        assertThat(read.machines()).as(where + ": machines read back").isEqualTo(live.machines());
        assertThat(read.pools()).as(where + ": pools read back").isEqualTo(live.pools());
        assertThat(read.queue()).as(where + ": queue read back").isEqualTo(live.queue());
        assertThat(read.fleetChanges()).as(where + ": fleet changes read back").isEqualTo(live.fleetChanges());
        assertThat(read.sequence()).as(where + ": sequence read back").isEqualTo(live.sequence());
        assertThat(read.lastGrantId()).as(where + ": last grant read back").isEqualTo(live.lastGrantId());
        assertThat(read.spotHeld()).isEqualTo(live.spotHeld());
        assertThat(read.reclaimable()).isEqualTo(live.reclaimable());
    }

    private static void assertInvariants(LedgerRun run, long grantedBefore, String where) {
        Ledger state = run.state;
        long allocated = state.count(Machine.Status.ALLOCATED);
        assertThat(allocated).as(where + ": allocated <= total").isLessThanOrEqualTo(state.total());

        Map<String, Machine> machines = state.machines();
        Set<String> granted = new HashSet<>();
        int grants = 0;
        for (CapacityChecked checked : run.published.values()) {
            for (Grant grant : checked.grants()) {
                assertThat(granted.add(grant.machine()))
                        .as(where + ": " + grant.machine() + " in two pools")
                        .isTrue();
                Machine machine = machines.get(grant.machine());
                assertThat(machine.status())
                        .as(where + ": published grant " + grant + " is held")
                        .isEqualTo(Machine.Status.ALLOCATED);
                assertThat(machine.allocation().pool())
                        .isEqualTo(checked.pool().key().toString());
                assertThat(machine.allocation().poolUid())
                        .isEqualTo(checked.pool().uid());
                assertThat(machine.allocation().grantId()).isEqualTo(grant.grantId());
            }
            grants += checked.grants().size();
            assertThat(checked.queuedNodes())
                    .as(where + ": queued of " + checked.pool().pool())
                    .isEqualTo(Math.max(
                            0, checked.requestedNodes() - checked.grants().size()));
        }
        assertThat((long) grants).as(where + ": sum of grants = allocated").isEqualTo(allocated);

        if (!state.queue().isEmpty()) {
            assertThat(state.count(Machine.Status.FREE))
                    .as(where + ": no machine idles while a pool waits")
                    .isZero();
        }
        if (state.reservedDemandWaiting() > 0) {
            assertThat(run.published.values())
                    .as(where + ": a spot pool was served while reserved demand waits")
                    .filteredOn(c -> c.pool().spot())
                    .allMatch(c -> c.grants().stream().allMatch(g -> g.grantId() <= grantedBefore));
        }
        long askedBack = state.reclaiming(Machine.Reclaim.RESERVED_DEMAND);
        assertThat(state.reservedDemandWaitsOnSpot())
                .as(where + ": reserved demand waits on unasked spot nodes")
                .isFalse();
        assertThat(askedBack).isLessThanOrEqualTo(state.spotHeld());
    }

    /** The provisioner preempts every node asked back, then the fleet grows to cover the demand. */
    private static void drain(LedgerRun run) {
        for (CapacityChecked checked : List.copyOf(run.published.values())) {
            for (Grant grant : checked.grants()) {
                Machine machine = run.state.machines().get(grant.machine());
                if (machine.allocation().reclaim() != null) {
                    run.apply(Inputs.release(checked.pool(), grant, "Preempted"));
                }
            }
        }
        int waiting = run.state.reservedDemandWaiting() + run.state.spotDemandWaiting();
        run.apply(Inputs.fleet(Operation.ADD, Math.max(1, waiting), null));
    }
}
