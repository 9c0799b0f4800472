package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The capacity decision of one zone × instance type: applies an input to the {@link Ledger} (changed in place) and
 * returns what to write and what to publish.
 *
 * <ul>
 *   <li>After every input it serves the queue: free machines go to {@code default} pools in the order they started
 *       waiting, then to {@code spot} pools in the same order.
 *   <li>It never takes a grant back by itself: a pool that asks for fewer nodes than it holds keeps them until the
 *       provisioner releases them.
 *   <li>A release counts only if it names the machine, pool incarnation and grant id that hold, so a duplicate or late
 *       release changes nothing.
 *   <li>A machine released because it is out of service (a node taken out for an alert, or one that could not be
 *       delivered) goes to maintenance, not back to the free machines.
 *   <li>A node a user deleted frees its machine, which the pool that deleted it gets back only when no other machine is
 *       free.
 *   <li>When reserved demand waits and spot pools hold machines, it asks back exactly the machines needed, once each,
 *       the most recently granted first: the least work lost, the longest-running spot nodes keep running.
 *   <li>It reads and changes only what the input concerns, through the {@link Ledger}'s indexes, and compares before
 *       and after only for the pools it touched (and the queue, when its order changed).
 *   <li>A decision's {@code capacity-checked} is said without its grants, which the record lists as the ledger holds
 *       them when it is written ({@link Ledger#withGrants}): a release of one of 5,000 grants costs no list of 5,000.
 * </ul>
 */
public final class CapacityLedger {

    public static final String COMPONENT = "capacity-service";

    /** The fault point where an operator's armed fault fails a pool's capacity check as if the ledger threw. */
    public static final String CAPACITY_CHECK = "capacity-check";

    private final int maxMachines;
    private final int rememberedFleetChanges;
    private final InjectedFaults faults;

    public CapacityLedger(int maxMachines, int rememberedFleetChanges) {
        this(maxMachines, rememberedFleetChanges, InjectedFaults.OFF);
    }

    public CapacityLedger(int maxMachines, int rememberedFleetChanges, InjectedFaults faults) {
        this.maxMachines = maxMachines;
        this.rememberedFleetChanges = rememberedFleetChanges;
        this.faults = faults;
    }

    /**
     * Applies {@code input} to the ledger and says what to write and publish. An input it cannot apply (an unexpected
     * error, a ledger that breaks an invariant) is undone and stops nothing: a pool whose demand it was gets the
     * reference's {@code InternalError}, keeping what it holds, until its next check.
     */
    public LedgerDecision apply(Ledger ledger, LedgerInput input, Instant now) {
        if (input instanceof LedgerInput.FleetChange change) {
            var earlier = ledger.fleetChange(change.request().requestId());
            if (earlier.isPresent()) {
                return new LedgerDecision(LedgerWrites.NONE, List.of(), List.of(), List.of(), earlier.get());
            }
        }
        LedgerChanges changes = ledger.begin();
        try {
            String injected = input instanceof LedgerInput.Demand demand
                    ? faults.fire(
                            CAPACITY_CHECK,
                            demand.checked().pool().zone(),
                            demand.checked().pool().org(),
                            demand.checked().pool().pool(),
                            now)
                    : null;
            if (injected != null) {
                // Fails where an unexpected error would, so the rollback and the InternalError are the real ones.
                throw new IllegalStateException(injected);
            }
            return decide(new Evaluation(ledger, changes, now), input);
        } catch (RuntimeException e) {
            changes.rollback();
            return CapacityChecks.failed(input, e, now);
        }
    }

    private LedgerDecision decide(Evaluation evaluation, LedgerInput input) {
        Map<String, Integer> placesBefore = evaluation.ledger.places();
        FleetOutcome outcome = null;
        switch (input) {
            case LedgerInput.Demand demand -> DemandChanges.onDemand(evaluation, demand.pool(), demand.checked());
            case LedgerInput.Forget forget -> DemandChanges.onForget(evaluation, forget);
            case LedgerInput.Release release -> DemandChanges.onRelease(evaluation, release.removed());
            case LedgerInput.FleetChange change -> {
                outcome = change.request().operation() == FleetChangeRequested.Operation.RECLAIM_SPOT
                        ? SpotReclaims.forOperator(evaluation, change.request())
                        : FleetChanges.apply(
                                evaluation.ledger, evaluation.changes, change.request(), maxMachines, evaluation.now);
                evaluation.changes.remember(outcome, rememberedFleetChanges);
            }
        }
        QueueServing.serve(evaluation);
        SpotReclaims.forReservedDemand(evaluation);
        List<LedgerDecision.PoolUpdate> updates = CapacityChecks.publish(evaluation, placesBefore);
        // Every output changes the ledger too (a published allocation, a reported generation, a machine asked back, a
        // remembered outcome), so an input that leaves it as it was writes nothing and says nothing; the sequence,
        // which only names outputs, then stays where it was.
        return new LedgerDecision(
                evaluation.changes.commit(), updates, evaluation.reclaims, evaluation.events, outcome);
    }
}
