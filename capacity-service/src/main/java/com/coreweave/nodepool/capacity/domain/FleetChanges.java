package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Operators' changes to the machines of one ledger. Only free machines (or machines in maintenance) are ever retired or
 * taken out of service: a machine a pool holds leaves only when the provisioner releases it. Growing brings retired
 * machines back first (lowest index), so a fleet shrunk and grown again keeps its machine names.
 */
final class FleetChanges {

    /** The machines a change names, or why it is refused (then {@code machines} is null). */
    private record Named(Set<Integer> machines, FleetOutcome refused) {}

    private final Ledger ledger;
    private final LedgerChanges changes;
    private final FleetChangeRequested request;
    private final int maxMachines;
    private final Instant now;

    private FleetChanges(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, int maxMachines, Instant now) {
        this.ledger = ledger;
        this.changes = changes;
        this.request = request;
        this.maxMachines = maxMachines;
        this.now = now;
    }

    /** Applies a SET_SIZE, ADD, REMOVE, MAINTENANCE or RETURN change (spot reclaims are the ledger's). */
    static FleetOutcome apply(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, int maxMachines, Instant now) {
        return new FleetChanges(ledger, changes, request, maxMachines, now).apply();
    }

    private FleetOutcome apply() {
        return switch (request.operation()) {
            case SET_SIZE -> setSize();
            case ADD -> positive() ? grow(request.count()) : invalid("add needs a positive count of machines");
            case REMOVE ->
                named()
                        ? removeNamed()
                        : positive()
                                ? removeFree(request.count())
                                : invalid("remove needs machine names or a positive count");
            case MAINTENANCE -> named() ? maintenance() : invalid("maintenance needs machine names");
            case RETURN -> named() ? giveBack() : invalid("return needs machine names");
            case RECLAIM_SPOT -> throw new IllegalArgumentException("spot reclaims are decided by the ledger");
        };
    }

    private FleetOutcome setSize() {
        if (request.count() == null || request.count() < 0) {
            return invalid("the desired number of machines must be zero or more");
        }
        long inService = ledger.count(Machine.Status.FREE) + ledger.count(Machine.Status.ALLOCATED);
        int desired = request.count();
        if (desired > inService) {
            return grow((int) (desired - inService));
        }
        return removeFree((int) (inService - desired));
    }

    private FleetOutcome grow(int count) {
        List<Integer> retired = ledger.outOfService(Machine.Status.RETIRED);
        int fresh = Math.max(0, count - retired.size());
        if ((long) ledger.machineCount() + fresh > maxMachines) {
            return invalid("a ledger holds at most " + maxMachines + " machines; " + ledger.key() + " has "
                    + ledger.machineCount() + " (retired included)");
        }
        List<String> added = new ArrayList<>();
        for (int machine : retired.subList(0, Math.min(count, retired.size()))) {
            changes.setOutOfService(machine, null);
            added.add(ledger.machineName(machine));
        }
        int first = changes.addMachines(fresh);
        for (int i = 0; i < fresh && added.size() < FleetOutcome.LISTED; i++) {
            added.add(ledger.machineName(first + i));
        }
        int total = Math.min(count, retired.size()) + fresh;
        return applied(total + " machine(s) added to " + ledger.key(), total, 0, 0, added);
    }

    /** Retires up to {@code count} free machines, highest index first; the rest cannot be retired yet. */
    private FleetOutcome removeFree(int count) {
        List<String> retired = new ArrayList<>();
        int done = 0;
        for (int i = ledger.previousFree(ledger.machineCount());
                i >= 1 && done < count;
                i = ledger.previousFree(i - 1)) {
            changes.setOutOfService(i, Machine.Status.RETIRED);
            if (retired.size() < FleetOutcome.LISTED) {
                retired.add(ledger.machineName(i));
            }
            done++;
        }
        int notRetired = count - done;
        String message = done + " machine(s) retired from " + ledger.key()
                + (notRetired == 0
                        ? ""
                        : "; " + notRetired + " could not be retired yet because pools hold them (retry "
                                + "once they are released)");
        return applied(message, 0, done, notRetired, retired);
    }

    private FleetOutcome removeNamed() {
        Named named = named(
                machine -> ledger.status(machine) == Machine.Status.ALLOCATED
                        ? allocated(machine, "; it can be retired once the pool releases it")
                        : null,
                status -> status != Machine.Status.RETIRED);
        return named.refused() != null
                ? named.refused()
                : outOfService(named.machines(), Machine.Status.RETIRED, " machine(s) retired");
    }

    private FleetOutcome maintenance() {
        Named named = named(
                machine -> switch (ledger.status(machine)) {
                    case ALLOCATED -> allocated(machine, "; only free machines can go to maintenance");
                    case RETIRED -> conflict("machine " + ledger.machineName(machine) + " is retired");
                    case FREE, MAINTENANCE -> null;
                },
                status -> status == Machine.Status.FREE);
        return named.refused() != null
                ? named.refused()
                : outOfService(
                        named.machines(),
                        Machine.Status.MAINTENANCE,
                        " machine(s) taken out of service for maintenance");
    }

    private FleetOutcome giveBack() {
        Named named = named(
                machine -> ledger.status(machine) == Machine.Status.RETIRED
                        ? conflict("machine " + ledger.machineName(machine)
                                + " is retired; add machines to grow the fleet")
                        : null,
                status -> status == Machine.Status.MAINTENANCE);
        return named.refused() != null
                ? named.refused()
                : outOfService(named.machines(), null, " machine(s) returned to service");
    }

    /**
     * The named machines whose status {@code keep} accepts, in the order named; or the refusal of the first name that
     * is not one of the ledger's machines, or whose machine {@code refusal} refuses (null: accepted).
     */
    private Named named(IntFunction<FleetOutcome> refusal, Predicate<Machine.Status> keep) {
        Set<Integer> named = new LinkedHashSet<>();
        for (String name : request.machines()) {
            int machine = ledger.indexOf(name);
            FleetOutcome refused = machine == 0
                    ? FleetOutcome.refused(
                            request, FleetOutcome.NOT_FOUND, "machine " + name + " is not in " + ledger.key(), now)
                    : refusal.apply(machine);
            if (refused != null) {
                return new Named(null, refused);
            }
            if (keep.test(ledger.status(machine))) {
                named.add(machine);
            }
        }
        return new Named(named, null);
    }

    /** Sets the machines out of service ({@code status} null: back in service) and says how many with {@code what}. */
    private FleetOutcome outOfService(Collection<Integer> machines, Machine.Status status, String what) {
        machines.forEach(m -> changes.setOutOfService(m, status));
        List<String> names = machines.stream().map(ledger::machineName).toList();
        return applied(machines.size() + what, 0, status == Machine.Status.RETIRED ? machines.size() : 0, 0, names);
    }

    private FleetOutcome applied(String message, int added, int retired, int notRetired, List<String> machines) {
        return new FleetOutcome(
                request.requestId(), request.operation(), null, message, added, retired, notRetired, machines, now);
    }

    private FleetOutcome allocated(int machine, String until) {
        return conflict(
                "machine " + ledger.machineName(machine) + " is allocated to pool " + ledger.holderOf(machine) + until);
    }

    private FleetOutcome conflict(String message) {
        return FleetOutcome.refused(request, FleetOutcome.CONFLICT, message, now);
    }

    private boolean positive() {
        return request.count() != null && request.count() > 0;
    }

    private boolean named() {
        return request.machines() != null && !request.machines().isEmpty();
    }

    private FleetOutcome invalid(String message) {
        return FleetOutcome.refused(request, FleetOutcome.INVALID, message, now);
    }
}
