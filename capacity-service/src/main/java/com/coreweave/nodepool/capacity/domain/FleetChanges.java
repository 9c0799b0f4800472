package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Operators' changes to the machines of one ledger. Only free machines (or machines in maintenance) are ever retired or
 * taken out of service: a machine a pool holds leaves only when the provisioner releases it. Growing brings retired
 * machines back first (lowest index), so a fleet shrunk and grown again keeps its machine names.
 */
final class FleetChanges {

    private FleetChanges() {}

    /** Applies a SET_SIZE, ADD, REMOVE, MAINTENANCE or RETURN change (spot reclaims are the ledger's). */
    static FleetOutcome apply(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, int maxMachines, Instant now) {
        return switch (request.operation()) {
            case SET_SIZE -> setSize(ledger, changes, request, maxMachines, now);
            case ADD ->
                positive(request)
                        ? grow(ledger, changes, request, request.count(), maxMachines, now)
                        : invalid(request, "add needs a positive count of machines", now);
            case REMOVE ->
                named(request)
                        ? removeNamed(ledger, changes, request, now)
                        : positive(request)
                                ? removeFree(ledger, changes, request, request.count(), now)
                                : invalid(request, "remove needs machine names or a positive count", now);
            case MAINTENANCE ->
                named(request)
                        ? maintenance(ledger, changes, request, now)
                        : invalid(request, "maintenance needs machine names", now);
            case RETURN ->
                named(request)
                        ? giveBack(ledger, changes, request, now)
                        : invalid(request, "return needs machine names", now);
            case RECLAIM_SPOT -> throw new IllegalArgumentException("spot reclaims are decided by the ledger");
        };
    }

    private static FleetOutcome setSize(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, int maxMachines, Instant now) {
        if (request.count() == null || request.count() < 0) {
            return invalid(request, "the desired number of machines must be zero or more", now);
        }
        long inService = ledger.count(Machine.Status.FREE) + ledger.count(Machine.Status.ALLOCATED);
        int desired = request.count();
        if (desired > inService) {
            return grow(ledger, changes, request, (int) (desired - inService), maxMachines, now);
        }
        return removeFree(ledger, changes, request, (int) (inService - desired), now);
    }

    private static FleetOutcome grow(
            Ledger ledger,
            LedgerChanges changes,
            FleetChangeRequested request,
            int count,
            int maxMachines,
            Instant now) {
        List<Integer> retired = ledger.outOfService(Machine.Status.RETIRED);
        int fresh = Math.max(0, count - retired.size());
        if ((long) ledger.machineCount() + fresh > maxMachines) {
            return invalid(
                    request,
                    "a ledger holds at most " + maxMachines + " machines; " + ledger.key() + " has "
                            + ledger.machineCount() + " (retired included)",
                    now);
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
        return new FleetOutcome(
                request.requestId(),
                request.operation(),
                null,
                total + " machine(s) added to " + ledger.key(),
                total,
                0,
                0,
                added,
                now);
    }

    /** Retires up to {@code count} free machines, highest index first; the rest cannot be retired yet. */
    private static FleetOutcome removeFree(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, int count, Instant now) {
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
        return new FleetOutcome(
                request.requestId(), request.operation(), null, message, 0, done, notRetired, retired, now);
    }

    private static FleetOutcome removeNamed(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, Instant now) {
        Set<Integer> named = new LinkedHashSet<>();
        for (String name : request.machines()) {
            int machine = ledger.indexOf(name);
            if (machine == 0) {
                return unknown(ledger, request, name, now);
            }
            if (ledger.status(machine) == Machine.Status.ALLOCATED) {
                return FleetOutcome.refused(
                        request,
                        FleetOutcome.CONFLICT,
                        "machine " + name + " is allocated to pool " + ledger.holderOf(machine)
                                + "; it can be retired once the pool releases it",
                        now);
            }
            named.add(machine);
        }
        List<Integer> retiring = named.stream()
                .filter(m -> ledger.status(m) != Machine.Status.RETIRED)
                .toList();
        retiring.forEach(m -> changes.setOutOfService(m, Machine.Status.RETIRED));
        return new FleetOutcome(
                request.requestId(),
                request.operation(),
                null,
                retiring.size() + " machine(s) retired",
                0,
                retiring.size(),
                0,
                names(ledger, retiring),
                now);
    }

    private static FleetOutcome maintenance(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, Instant now) {
        Set<Integer> named = new LinkedHashSet<>();
        for (String name : request.machines()) {
            int machine = ledger.indexOf(name);
            if (machine == 0) {
                return unknown(ledger, request, name, now);
            }
            switch (ledger.status(machine)) {
                case ALLOCATED -> {
                    return FleetOutcome.refused(
                            request,
                            FleetOutcome.CONFLICT,
                            "machine " + name + " is allocated to pool " + ledger.holderOf(machine)
                                    + "; only free machines can go to maintenance",
                            now);
                }
                case RETIRED -> {
                    return FleetOutcome.refused(request, FleetOutcome.CONFLICT, "machine " + name + " is retired", now);
                }
                case FREE -> named.add(machine);
                case MAINTENANCE -> {}
            }
        }
        named.forEach(m -> changes.setOutOfService(m, Machine.Status.MAINTENANCE));
        return new FleetOutcome(
                request.requestId(),
                request.operation(),
                null,
                named.size() + " machine(s) taken out of service for maintenance",
                0,
                0,
                0,
                names(ledger, named),
                now);
    }

    private static FleetOutcome giveBack(
            Ledger ledger, LedgerChanges changes, FleetChangeRequested request, Instant now) {
        Set<Integer> named = new LinkedHashSet<>();
        for (String name : request.machines()) {
            int machine = ledger.indexOf(name);
            if (machine == 0) {
                return unknown(ledger, request, name, now);
            }
            if (ledger.status(machine) == Machine.Status.RETIRED) {
                return FleetOutcome.refused(
                        request,
                        FleetOutcome.CONFLICT,
                        "machine " + name + " is retired; add machines to grow the fleet",
                        now);
            }
            if (ledger.status(machine) == Machine.Status.MAINTENANCE) {
                named.add(machine);
            }
        }
        named.forEach(m -> changes.setOutOfService(m, null));
        return new FleetOutcome(
                request.requestId(),
                request.operation(),
                null,
                named.size() + " machine(s) returned to service",
                0,
                0,
                0,
                names(ledger, named),
                now);
    }

    private static List<String> names(Ledger ledger, Collection<Integer> machines) {
        return machines.stream().map(ledger::machineName).toList();
    }

    private static boolean positive(FleetChangeRequested request) {
        return request.count() != null && request.count() > 0;
    }

    private static boolean named(FleetChangeRequested request) {
        return request.machines() != null && !request.machines().isEmpty();
    }

    private static FleetOutcome unknown(Ledger ledger, FleetChangeRequested request, String name, Instant now) {
        return FleetOutcome.refused(
                request, FleetOutcome.NOT_FOUND, "machine " + name + " is not in " + ledger.key(), now);
    }

    private static FleetOutcome invalid(FleetChangeRequested request, String message, Instant now) {
        return FleetOutcome.refused(request, FleetOutcome.INVALID, message, now);
    }
}
