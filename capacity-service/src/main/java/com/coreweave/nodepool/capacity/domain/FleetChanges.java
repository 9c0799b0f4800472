package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Operators' changes to the machines of one ledger. Only free machines (or machines in maintenance) are ever
 * retired or taken out of service: a machine a pool holds leaves only when the provisioner releases it. Growing
 * brings retired machines back first (lowest index), so a fleet shrunk and grown again keeps its machine names.
 */
final class FleetChanges {

  private FleetChanges() {
  }

  /** Applies a SET_SIZE, ADD, REMOVE, MAINTENANCE or RETURN change (spot reclaims are the ledger's). */
  static FleetOutcome apply(WorkingLedger ledger, FleetChangeRequested request, int maxMachines, Instant now) {
    return switch (request.operation()) {
      case SET_SIZE -> setSize(ledger, request, maxMachines, now);
      case ADD -> positive(request) ? grow(ledger, request, request.count(), maxMachines, now)
          : invalid(request, "add needs a positive count of machines", now);
      case REMOVE -> request.machines() != null && !request.machines().isEmpty() ? removeNamed(ledger, request, now)
          : positive(request) ? removeFree(ledger, request, request.count(), now)
          : invalid(request, "remove needs machine names or a positive count", now);
      case MAINTENANCE -> named(request) ? maintenance(ledger, request, now)
          : invalid(request, "maintenance needs machine names", now);
      case RETURN -> named(request) ? giveBack(ledger, request, now)
          : invalid(request, "return needs machine names", now);
      case RECLAIM_SPOT -> throw new IllegalArgumentException("spot reclaims are decided by the ledger");
    };
  }

  private static FleetOutcome setSize(WorkingLedger ledger, FleetChangeRequested request, int maxMachines,
                                      Instant now) {
    if (request.count() == null || request.count() < 0) {
      return invalid(request, "the desired number of machines must be zero or more", now);
    }
    int inService = ledger.withStatus(Machine.Status.FREE).size() + ledger.withStatus(Machine.Status.ALLOCATED).size();
    int desired = request.count();
    if (desired > inService) {
      return grow(ledger, request, desired - inService, maxMachines, now);
    }
    return removeFree(ledger, request, inService - desired, now);
  }

  private static FleetOutcome grow(WorkingLedger ledger, FleetChangeRequested request, int count, int maxMachines,
                                   Instant now) {
    List<Machine> retired = ledger.withStatus(Machine.Status.RETIRED);
    int fresh = Math.max(0, count - retired.size());
    if (ledger.machines().size() + fresh > maxMachines) {
      return invalid(request, "a ledger holds at most " + maxMachines + " machines; " + ledger.zone + "/"
          + ledger.instanceType + " has " + ledger.machines().size() + " (retired included)", now);
    }
    List<String> added = new ArrayList<>();
    for (Machine machine : retired.subList(0, Math.min(count, retired.size()))) {
      ledger.put(machine.withStatus(Machine.Status.FREE));
      added.add(machine.name());
    }
    int index = ledger.nextIndex();
    for (int i = 0; i < fresh; i++) {
      Machine machine = Machine.fresh(ledger.zone, ledger.instanceType, index++);
      ledger.put(machine);
      added.add(machine.name());
    }
    return new FleetOutcome(request.requestId(), request.operation(), null, added.size() + " machine(s) added to "
        + ledger.zone + "/" + ledger.instanceType, added.size(), 0, 0, added, now);
  }

  /** Retires up to {@code count} free machines, highest index first; the rest cannot be retired yet. */
  private static FleetOutcome removeFree(WorkingLedger ledger, FleetChangeRequested request, int count,
                                         Instant now) {
    List<Machine> free = ledger.withStatus(Machine.Status.FREE).stream()
        .sorted(Comparator.comparingInt(Machine::index).reversed()).limit(count).toList();
    free.forEach(m -> ledger.put(m.withStatus(Machine.Status.RETIRED)));
    int notRetired = count - free.size();
    String message = free.size() + " machine(s) retired from " + ledger.zone + "/" + ledger.instanceType
        + (notRetired == 0 ? "" : "; " + notRetired + " could not be retired yet because pools hold them (retry "
        + "once they are released)");
    return new FleetOutcome(request.requestId(), request.operation(), null, message, 0, free.size(), notRetired,
        free.stream().map(Machine::name).toList(), now);
  }

  private static FleetOutcome removeNamed(WorkingLedger ledger, FleetChangeRequested request, Instant now) {
    List<Machine> named = new ArrayList<>();
    for (String name : request.machines()) {
      Machine machine = ledger.machine(name);
      if (machine == null) {
        return unknown(ledger, request, name, now);
      }
      if (machine.status() == Machine.Status.ALLOCATED) {
        return FleetOutcome.refused(request, FleetOutcome.CONFLICT, "machine " + name + " is allocated to pool "
            + machine.allocation().pool() + "; it can be retired once the pool releases it", now);
      }
      named.add(machine);
    }
    List<Machine> retiring = named.stream().filter(m -> m.status() != Machine.Status.RETIRED).distinct().toList();
    retiring.forEach(m -> ledger.put(m.withStatus(Machine.Status.RETIRED)));
    return new FleetOutcome(request.requestId(), request.operation(), null, retiring.size() + " machine(s) retired",
        0, retiring.size(), 0, retiring.stream().map(Machine::name).toList(), now);
  }

  private static FleetOutcome maintenance(WorkingLedger ledger, FleetChangeRequested request, Instant now) {
    List<Machine> named = new ArrayList<>();
    for (String name : request.machines()) {
      Machine machine = ledger.machine(name);
      if (machine == null) {
        return unknown(ledger, request, name, now);
      }
      switch (machine.status()) {
        case ALLOCATED -> {
          return FleetOutcome.refused(request, FleetOutcome.CONFLICT, "machine " + name + " is allocated to pool "
              + machine.allocation().pool() + "; only free machines can go to maintenance", now);
        }
        case RETIRED -> {
          return FleetOutcome.refused(request, FleetOutcome.CONFLICT, "machine " + name + " is retired", now);
        }
        case FREE -> named.add(machine);
        case MAINTENANCE -> { }
      }
    }
    List<Machine> taken = named.stream().distinct().toList();
    taken.forEach(m -> ledger.put(m.withStatus(Machine.Status.MAINTENANCE)));
    return new FleetOutcome(request.requestId(), request.operation(), null, taken.size()
        + " machine(s) taken out of service for maintenance", 0, 0, 0, taken.stream().map(Machine::name).toList(),
        now);
  }

  private static FleetOutcome giveBack(WorkingLedger ledger, FleetChangeRequested request, Instant now) {
    List<Machine> named = new ArrayList<>();
    for (String name : request.machines()) {
      Machine machine = ledger.machine(name);
      if (machine == null) {
        return unknown(ledger, request, name, now);
      }
      if (machine.status() == Machine.Status.RETIRED) {
        return FleetOutcome.refused(request, FleetOutcome.CONFLICT, "machine " + name
            + " is retired; add machines to grow the fleet", now);
      }
      if (machine.status() == Machine.Status.MAINTENANCE) {
        named.add(machine);
      }
    }
    List<Machine> returned = named.stream().distinct().toList();
    returned.forEach(m -> ledger.put(m.withStatus(Machine.Status.FREE)));
    return new FleetOutcome(request.requestId(), request.operation(), null, returned.size()
        + " machine(s) returned to service", 0, 0, 0, returned.stream().map(Machine::name).toList(), now);
  }

  private static boolean positive(FleetChangeRequested request) {
    return request.count() != null && request.count() > 0;
  }

  private static boolean named(FleetChangeRequested request) {
    return request.machines() != null && !request.machines().isEmpty();
  }

  private static FleetOutcome unknown(WorkingLedger ledger, FleetChangeRequested request, String name,
                                      Instant now) {
    return FleetOutcome.refused(request, FleetOutcome.NOT_FOUND, "machine " + name + " is not in "
        + ledger.zone + "/" + ledger.instanceType, now);
  }

  private static FleetOutcome invalid(FleetChangeRequested request, String message, Instant now) {
    return FleetOutcome.refused(request, FleetOutcome.INVALID, message, now);
  }
}
