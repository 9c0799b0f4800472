package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The capacity decision of one zone × instance type, as a pure function {@code (ledger, input) -> decision}.
 * After every input it serves the queue: free machines go to {@code default} pools in the order they started
 * waiting, then to {@code spot} pools in the same order. It never takes a grant back by itself: a pool that asks for
 * fewer nodes than it holds keeps them until the provisioner releases them, and a release counts only if it names
 * the machine, pool incarnation and grant id that hold, so a duplicate or late release changes nothing. A machine
 * released because it is out of service (a node taken out for an alert, or one that could not be delivered) goes to
 * maintenance, not back to the free machines; a node a user deleted frees its machine, which the pool that deleted it
 * gets back only when no other machine is free. When reserved demand waits and spot pools hold machines, it asks back
 * exactly the machines needed, once each.
 */
public final class CapacityLedger {

  public static final String COMPONENT = "capacity-service";
  /** The release cause of a node a user deleted: the pool gets another machine when one is free. */
  static final String DELETED = "Deleted";
  /** The reference's message of a pool whose nodes are all granted. */
  public static final String SUFFICIENT_MESSAGE = "Sufficient capacity available for the requested instance type.";

  private final int maxMachines;
  private final int rememberedFleetChanges;

  public CapacityLedger(int maxMachines, int rememberedFleetChanges) {
    this.maxMachines = maxMachines;
    this.rememberedFleetChanges = rememberedFleetChanges;
  }

  /** What one input changed besides the machines: whose demand moved, who was granted what, who was forgotten. */
  private static final class Evaluation {
    final Map<String, Integer> previousDemand = new HashMap<>();
    final Map<String, Integer> grantedNow = new HashMap<>();
    final List<String> forgotten = new ArrayList<>();
    final List<SpotReclaimRequested> reclaims = new ArrayList<>();
    final List<RecordedEvent> events = new ArrayList<>();
    /** A machine a pool released for a deleted node, which that pool should not be handed straight back. */
    final Map<String, String> releasedBy = new HashMap<>();
  }

  /**
   * The ledger after {@code input}. An input it cannot apply (an unexpected error, a ledger that breaks an invariant)
   * changes nothing and stops nothing: a pool whose demand it was gets the reference's {@code InternalError}, keeping
   * what it holds, until its next check.
   */
  public LedgerDecision apply(LedgerState state, LedgerInput input, Instant now) {
    try {
      return decide(state, input, now);
    } catch (RuntimeException e) {
      return failed(state, input, e, now);
    }
  }

  private LedgerDecision decide(LedgerState state, LedgerInput input, Instant now) {
    if (input instanceof LedgerInput.FleetChange change) {
      var earlier = state.fleetChange(change.request().requestId());
      if (earlier.isPresent()) {
        return new LedgerDecision(state, false, List.of(), List.of(), List.of(), earlier.get());
      }
    }
    WorkingLedger ledger = new WorkingLedger(state);
    Map<String, CapacityChecked> published = lastPublished(ledger, now);
    Evaluation evaluation = new Evaluation();
    FleetOutcome outcome = null;
    switch (input) {
      case LedgerInput.Demand demand -> onDemand(ledger, demand.pool(), demand.checked(), evaluation);
      case LedgerInput.Forget forget -> onForget(ledger, forget, evaluation);
      case LedgerInput.Release release -> onRelease(ledger, release.removed(), evaluation);
      case LedgerInput.FleetChange change -> {
        outcome = change.request().operation() == FleetChangeRequested.Operation.RECLAIM_SPOT
            ? reclaimForOperator(ledger, change.request(), evaluation, now)
            : FleetChanges.apply(ledger, change.request(), maxMachines, now);
        ledger.remember(outcome, rememberedFleetChanges);
      }
    }
    serve(ledger, evaluation, now);
    reclaimForReservedDemand(ledger, evaluation, now);
    List<LedgerDecision.PoolUpdate> updates = publish(ledger, published, evaluation, now);
    // Every output changes the ledger too (a published allocation, a reported generation, a machine asked back, a
    // remembered outcome), so an input that leaves it as it was has nothing to say and nothing to store; the
    // sequence, which only names outputs, then stays where it was.
    if (!ledger.differsFrom(state)) {
      return new LedgerDecision(state, false, updates, evaluation.reclaims, evaluation.events, outcome);
    }
    return new LedgerDecision(ledger.state(), true, updates, evaluation.reclaims, evaluation.events, outcome);
  }

  private static LedgerDecision failed(LedgerState state, LedgerInput input, RuntimeException error, Instant now) {
    if (!(input instanceof LedgerInput.Demand demand)) {
      return new LedgerDecision(state, false, List.of(), List.of(), List.of(), null);
    }
    PoolRef ref = demand.checked().pool();
    List<Grant> held = state.machines().values().stream()
        .filter(m -> m.status() == Machine.Status.ALLOCATED && m.allocation() != null
            && m.allocation().pool().equals(demand.pool()) && m.allocation().poolUid().equals(ref.uid()))
        .map(m -> new Grant(m.name(), m.allocation().grantId())).toList();
    String message = "Capacity check failed: " + (error.getMessage() == null ? error.getClass().getSimpleName()
        : error.getMessage());
    CapacityChecked checked = new CapacityChecked(ref, Conditions.Capacity.INTERNAL_ERROR,
        demand.checked().admittedNodes(), held, 0, null, null, message, now);
    return new LedgerDecision(state, false, List.of(new LedgerDecision.PoolUpdate(demand.pool(), checked)), List.of(),
        List.of(), null);
  }

  private static void onDemand(WorkingLedger ledger, String pool, QuotaChecked checked, Evaluation evaluation) {
    PoolRef ref = checked.pool();
    PoolDemand held = ledger.pools.get(pool);
    if (held != null && held.ref().uid().equals(ref.uid()) && ref.generation() < held.ref().generation()) {
      return;
    }
    if (held != null && !held.ref().uid().equals(ref.uid())) {
      // The pool was deleted and created again under the same name: the old incarnation's grants are void.
      ledger.releaseAll(pool, held.ref().uid());
      held = null;
    }
    if (held != null && held.spot() != ref.spot()) {
      ledger.reclass(pool, ref.uid(), ref.spot());
    }
    int demand = Math.max(0, checked.admittedNodes());
    int previous = held == null ? 0 : held.demand();
    ledger.pools.put(pool, held == null ? new PoolDemand(ref, demand, null, null, 0, null)
        : held.withRef(ref, demand));
    if (held == null || previous != demand) {
      evaluation.previousDemand.put(pool, previous);
    }
  }

  private static void onForget(WorkingLedger ledger, LedgerInput.Forget forget, Evaluation evaluation) {
    PoolDemand held = ledger.pools.get(forget.pool());
    if (held == null || (forget.poolUid() != null && !forget.poolUid().equals(held.ref().uid()))) {
      return;
    }
    ledger.releaseAll(forget.pool(), held.ref().uid());
    ledger.pools.remove(forget.pool());
    evaluation.forgotten.add(forget.pool());
  }

  private static void onRelease(WorkingLedger ledger, NodeFact.NodeRemoved removed, Evaluation evaluation) {
    Grant grant = removed.grant();
    Machine machine = grant == null ? null : ledger.machine(grant.machine());
    String pool = removed.pool().key().toString();
    if (machine != null && machine.allocatedTo(pool, removed.pool().uid())
        && machine.allocation().grantId() == grant.grantId()) {
      ledger.release(machine, removed.outOfService());
      if (DELETED.equals(removed.cause())) {
        evaluation.releasedBy.put(pool, machine.name());
      }
    }
  }

  /** Hands free machines to waiting pools: default before spot, each in the order they started waiting. */
  private static void serve(WorkingLedger ledger, Evaluation evaluation, Instant now) {
    refreshTickets(ledger, now);
    for (PoolDemand pool : queue(ledger)) {
      String key = pool.ref().key().toString();
      for (int wanted = ledger.queued(pool); wanted > 0; wanted--) {
        var free = ledger.nextFree(evaluation.releasedBy.get(key));
        if (free.isEmpty()) {
          refreshTickets(ledger, now);
          return;
        }
        ledger.grant(free.get(), pool.ref(), now);
        evaluation.grantedNow.merge(key, 1, Integer::sum);
      }
    }
    refreshTickets(ledger, now);
  }

  /** A pool that starts waiting takes the next ticket; a pool that waits no more gives its ticket up. */
  private static void refreshTickets(WorkingLedger ledger, Instant now) {
    for (var entry : ledger.pools.entrySet()) {
      PoolDemand pool = entry.getValue();
      boolean waits = ledger.queued(pool) > 0;
      if (waits && pool.ticket() == null) {
        entry.setValue(pool.waiting(ledger.nextTicket(), now));
      } else if (!waits && pool.ticket() != null) {
        entry.setValue(pool.waiting(null, null));
      }
    }
  }

  private static List<PoolDemand> queue(WorkingLedger ledger) {
    return ledger.pools.values().stream()
        .filter(p -> p.ticket() != null)
        .sorted(Comparator.comparing(PoolDemand::spot).thenComparing(PoolDemand::ticket))
        .toList();
  }

  /** Each waiting pool's place in the queue, 1-based. */
  private static Map<String, Integer> places(WorkingLedger ledger) {
    Map<String, Integer> places = new HashMap<>();
    for (PoolDemand pool : queue(ledger)) {
      places.put(pool.ref().key().toString(), places.size() + 1);
    }
    return places;
  }

  /** Reserved demand waits while spot pools hold machines: ask back exactly the machines not yet asked for. */
  private static void reclaimForReservedDemand(WorkingLedger ledger, Evaluation evaluation, Instant now) {
    int waiting = ledger.pools.values().stream().filter(p -> !p.spot()).mapToInt(ledger::queued).sum();
    long asked = ledger.machines().stream().filter(m -> m.status() == Machine.Status.ALLOCATED
        && m.allocation().reclaim() == Machine.Reclaim.RESERVED_DEMAND).count();
    int needed = (int) (waiting - asked);
    if (needed <= 0) {
      return;
    }
    List<Machine> chosen = SpotReclaimPolicy.choose(ledger.machines(), needed);
    reclaim(ledger, chosen, Machine.Reclaim.RESERVED_DEMAND, waiting + " node(s) of reserved demand wait for "
        + ledger.instanceType + " in " + ledger.zone, evaluation, now);
  }

  private static FleetOutcome reclaimForOperator(WorkingLedger ledger, FleetChangeRequested request,
                                                 Evaluation evaluation, Instant now) {
    if (request.count() == null || request.count() <= 0) {
      return FleetOutcome.refused(request, FleetOutcome.INVALID, "reclaim-spot needs a positive number of nodes",
          now);
    }
    List<Machine> chosen = SpotReclaimPolicy.choose(ledger.machines(), request.count());
    reclaim(ledger, chosen, Machine.Reclaim.OPERATOR, "capacity of " + ledger.instanceType + " in " + ledger.zone
        + " is needed elsewhere (operator reclaim)", evaluation, now);
    List<String> names = chosen.stream().map(Machine::name).sorted().toList();
    return new FleetOutcome(request.requestId(), request.operation(), null, names.size() + " of " + request.count()
        + " spot node(s) asked back" + (names.size() < request.count() ? " (spot pools hold no more that are not "
        + "already asked back)" : "") + "; they go to maintenance once preempted", 0, 0, 0, names, now);
  }

  /** Marks the machines asked back and writes one request per spot pool naming its nodes. */
  private static void reclaim(WorkingLedger ledger, List<Machine> chosen, Machine.Reclaim why, String reason,
                              Evaluation evaluation, Instant now) {
    Map<String, List<String>> byPool = new TreeMap<>();
    for (Machine machine : chosen) {
      ledger.put(machine.reclaimed(why));
      byPool.computeIfAbsent(machine.allocation().pool(), p -> new ArrayList<>()).add(machine.name());
    }
    byPool.forEach((pool, nodes) -> {
      PoolRef ref = ledger.pools.get(pool).ref();
      String id = ledger.zone + "/" + ledger.instanceType + "#" + ledger.sequence + "/"
          + why.name().toLowerCase(java.util.Locale.ROOT) + "/" + pool;
      evaluation.reclaims.add(new SpotReclaimRequested(id, ref, nodes.stream().sorted().toList(), reason, now));
    });
  }

  /**
   * What every pool was last told, as of the ledger before the input. After each input a pool's published
   * {@code capacity-checked} is exactly the ledger's view of it (grants, demand, queue place) with the reason decided
   * then, so only that reason is stored with the pool and the rest is derived here: a second copy of every pool's
   * record made up most of a big ledger's bytes.
   */
  private static Map<String, CapacityChecked> lastPublished(WorkingLedger ledger, Instant now) {
    Map<String, Integer> places = places(ledger);
    Map<String, CapacityChecked> published = new HashMap<>();
    ledger.pools.forEach((key, pool) -> published.put(key,
        checked(key, pool, pool.publishedReason(), grants(ledger, key, pool.ref()), places, now)));
    return published;
  }

  /** The {@code capacity-checked} of every pool whose allocation, queue place or reason changed, and events. */
  private static List<LedgerDecision.PoolUpdate> publish(WorkingLedger ledger, Map<String, CapacityChecked> published,
                                                         Evaluation evaluation, Instant now) {
    List<LedgerDecision.PoolUpdate> updates = new ArrayList<>();
    Map<String, Integer> places = places(ledger);
    for (var entry : ledger.pools.entrySet()) {
      String key = entry.getKey();
      PoolDemand pool = entry.getValue();
      PoolRef ref = pool.ref();
      List<Grant> grants = grants(ledger, key, ref);
      int queued = Math.max(0, pool.demand() - grants.size());
      int granted = evaluation.grantedNow.getOrDefault(key, 0);
      boolean ownDemand = evaluation.previousDemand.containsKey(key);
      String reason = reason(pool, grants.size(), queued, ownDemand, granted);
      CapacityChecked checked = checked(key, pool, reason, grants, places, now);
      // Both carry the same checkedAt: equal means nothing new to publish.
      if (!checked.equals(published.get(key))) {
        updates.add(new LedgerDecision.PoolUpdate(key, checked));
        pool = pool.withPublishedReason(reason);
      }
      if (ownDemand && pool.demand() > evaluation.previousDemand.get(key)) {
        int requested = pool.demand() - evaluation.previousDemand.get(key);
        evaluation.events.add(RecordedEvent.ofPool(ref, CwEvent.CWNodeRequestQueued, "Requested " + requested
            + " node(s) of " + ref.instanceType() + " in " + ref.zone() + "; " + granted + " granted, " + queued
            + " queued", ref.uid() + "/demand-" + ledger.sequence, COMPONENT, now));
      }
      if (queued > 0 && pool.insufficientReported() < ref.generation()) {
        evaluation.events.add(RecordedEvent.ofPool(ref, CwEvent.CWInsufficientCapacity, "Insufficient capacity: "
            + queued + " of " + pool.demand() + " requested node(s) of " + ref.instanceType() + " in " + ref.zone()
            + " are queued until capacity frees up.", ref.uid() + "/" + ref.generation(), COMPONENT, now));
        pool = pool.reportedInsufficient(ref.generation());
      }
      entry.setValue(pool);
    }
    evaluation.forgotten.forEach(key -> updates.add(new LedgerDecision.PoolUpdate(key, null)));
    return updates;
  }

  /**
   * The {@code Capacity} reason: all granted is Sufficient; the evaluation of the pool's own new demand says what
   * it found (Partial, NoneAvailable); any later evaluation of a waiting pool says it waits. A pool that asks for
   * nothing and holds nothing has no Capacity condition.
   */
  static String reason(PoolDemand pool, int held, int queued, boolean ownDemand, int grantedNow) {
    if (queued == 0) {
      return held == 0 && pool.demand() == 0 ? null : Conditions.Capacity.SUFFICIENT;
    }
    if (ownDemand) {
      return grantedNow > 0 ? Conditions.Capacity.PARTIAL : Conditions.Capacity.NONE_AVAILABLE;
    }
    return Conditions.Capacity.QUEUED_AWAITING_CAPACITY;
  }

  /** "2 nodes queued, position 3 of 5 for gd-8xa100-i128 in US-EAST-04A". */
  public static String queuedMessage(int queued, int position, int length, PoolRef pool) {
    return queued + (queued == 1 ? " node" : " nodes") + " queued, position " + position + " of " + length + " for "
        + pool.instanceType() + " in " + pool.zone();
  }

  /** A pool's {@code capacity-checked}: what it holds, how many nodes it waits for, its place, and what that means. */
  private static CapacityChecked checked(String key, PoolDemand pool, String reason, List<Grant> grants,
                                         Map<String, Integer> places, Instant now) {
    PoolRef ref = pool.ref();
    int queued = Math.max(0, pool.demand() - grants.size());
    int position = places.getOrDefault(key, 0);
    int length = places.size();
    return new CapacityChecked(ref, reason, pool.demand(), grants, queued, queued > 0 ? position : null,
        queued > 0 ? length : null, queued > 0 ? queuedMessage(queued, position, length, ref)
            : grants.isEmpty() && pool.demand() == 0 ? null : SUFFICIENT_MESSAGE, now);
  }

  private static List<Grant> grants(WorkingLedger ledger, String key, PoolRef ref) {
    return ledger.held(key, ref.uid()).stream().map(m -> new Grant(m.name(), m.allocation().grantId())).toList();
  }
}
