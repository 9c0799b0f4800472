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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

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
        final Map<String, Integer> releasedBy = new HashMap<>();
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
        ledger.begin();
        try {
            return decide(ledger, input, now);
        } catch (RuntimeException e) {
            ledger.rollback();
            return failed(ledger, input, e, now);
        }
    }

    private LedgerDecision decide(Ledger ledger, LedgerInput input, Instant now) {
        Map<String, Integer> placesBefore = ledger.places();
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
        List<LedgerDecision.PoolUpdate> updates = publish(ledger, placesBefore, evaluation, now);
        // Every output changes the ledger too (a published allocation, a reported generation, a machine asked back, a
        // remembered outcome), so an input that leaves it as it was writes nothing and says nothing; the sequence,
        // which only names outputs, then stays where it was.
        return new LedgerDecision(ledger.commit(), updates, evaluation.reclaims, evaluation.events, outcome);
    }

    private static LedgerDecision failed(Ledger ledger, LedgerInput input, RuntimeException error, Instant now) {
        if (!(input instanceof LedgerInput.Demand demand)) {
            return new LedgerDecision(LedgerWrites.NONE, List.of(), List.of(), List.of(), null);
        }
        PoolRef ref = demand.checked().pool();
        String message = "Capacity check failed: "
                + (error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage());
        // Its grants, those the pool keeps, are listed as the ledger holds them (none for another incarnation).
        CapacityChecked checked = new CapacityChecked(
                ref,
                Conditions.Capacity.INTERNAL_ERROR,
                demand.checked().admittedNodes(),
                null,
                0,
                null,
                null,
                message,
                now,
                demand.checked().reason(),
                demand.checked().message());
        return new LedgerDecision(
                LedgerWrites.NONE,
                List.of(new LedgerDecision.PoolUpdate(demand.pool(), checked)),
                List.of(),
                List.of(),
                null);
    }

    private static void onDemand(Ledger ledger, String pool, QuotaChecked checked, Evaluation evaluation) {
        PoolRef ref = checked.pool();
        PoolDemand held = ledger.pool(pool);
        if (held != null
                && held.ref().uid().equals(ref.uid())
                && ref.generation() < held.ref().generation()) {
            return;
        }
        if (held != null && !held.ref().uid().equals(ref.uid())) {
            // The pool was deleted and created again under the same name: the old incarnation's grants are void.
            ended(ledger, ledger.endAll(pool), false);
            held = null;
        }
        int demand = Math.max(0, checked.admittedNodes());
        int previous = held == null ? 0 : held.demand();
        // A change of compute class needs nothing more: what a pool holds counts as spot exactly while it is spot.
        ledger.putPool(pool, (held == null ? PoolDemand.of(ref, demand) : held).decided(checked, demand));
        if (held == null || previous != demand) {
            evaluation.previousDemand.put(pool, previous);
        }
    }

    private static void onForget(Ledger ledger, LedgerInput.Forget forget, Evaluation evaluation) {
        PoolDemand held = ledger.pool(forget.pool());
        if (held == null
                || (forget.poolUid() != null
                        && !forget.poolUid().equals(held.ref().uid()))) {
            return;
        }
        ended(ledger, ledger.endAll(forget.pool()), false);
        ledger.putPool(forget.pool(), null);
        evaluation.forgotten.add(forget.pool());
    }

    private static void onRelease(Ledger ledger, NodeFact.NodeRemoved removed, Evaluation evaluation) {
        Grant grant = removed.grant();
        String pool = removed.pool().key().toString();
        PoolDemand holder = ledger.pool(pool);
        if (grant == null
                || holder == null
                || !holder.ref().uid().equals(removed.pool().uid())) {
            return;
        }
        Holding held = ledger.holding(pool, grant.grantId());
        int machine = ledger.indexOf(grant.machine());
        if (held == null || held.machine() != machine) {
            return;
        }
        ledger.endGrant(pool, held.grantId());
        ended(ledger, List.of(held), removed.outOfService());
        if (DELETED.equals(removed.cause())) {
            evaluation.releasedBy.put(pool, machine);
        }
    }

    /**
     * After grants ended: a machine out of service, or one an operator asked back (the capacity is needed elsewhere),
     * goes to maintenance; every other one is free for the queue.
     */
    private static void ended(Ledger ledger, List<Holding> released, boolean outOfService) {
        for (Holding h : released) {
            if (outOfService || h.reclaim() == Machine.Reclaim.OPERATOR) {
                ledger.setOutOfService(h.machine(), Machine.Status.MAINTENANCE);
            }
        }
    }

    /** Hands free machines to waiting pools: default before spot, each in the order they started waiting. */
    private static void serve(Ledger ledger, Evaluation evaluation, Instant now) {
        refreshTickets(ledger, now);
        for (PoolDemand waiting : ledger.queue()) {
            String key = waiting.ref().key().toString();
            int wanted = ledger.queued(key);
            Integer unless = evaluation.releasedBy.get(key);
            List<Integer> chosen = new ArrayList<>();
            for (int i = ledger.nextFree(1); i >= 0 && chosen.size() < wanted; i = ledger.nextFree(i + 1)) {
                if (unless == null || i != unless) {
                    chosen.add(i);
                }
            }
            if (chosen.size() < wanted && unless != null && ledger.status(unless) == Machine.Status.FREE) {
                chosen.add(unless);
            }
            if (!chosen.isEmpty()) {
                chosen.forEach(i -> ledger.grant(key, new Holding(i, ledger.nextGrantId(), now, null)));
                evaluation.grantedNow.merge(key, chosen.size(), Integer::sum);
            }
            if (chosen.size() < wanted) {
                break;
            }
        }
        refreshTickets(ledger, now);
    }

    /**
     * A pool that starts waiting takes the next ticket; a pool that waits no more gives its ticket up. Only a pool this
     * input changed can start or stop waiting.
     */
    private static void refreshTickets(Ledger ledger, Instant now) {
        for (String key : new TreeSet<>(ledger.touched())) {
            PoolDemand pool = ledger.pool(key);
            if (pool == null) {
                continue;
            }
            boolean waits = ledger.queued(key) > 0;
            if (waits && pool.ticket() == null) {
                ledger.putPool(key, pool.waiting(ledger.nextTicket(), now));
            } else if (!waits && pool.ticket() != null) {
                ledger.putPool(key, pool.waiting(null, null));
            }
        }
    }

    /** Reserved demand waits while spot pools hold machines: ask back exactly the machines not yet asked for. */
    private static void reclaimForReservedDemand(Ledger ledger, Evaluation evaluation, Instant now) {
        int waiting = ledger.reservedDemandWaiting();
        int needed = (int) (waiting - ledger.reclaiming(Machine.Reclaim.RESERVED_DEMAND));
        if (needed <= 0) {
            return;
        }
        reclaim(
                ledger,
                ledger.newestReclaimable(needed),
                Machine.Reclaim.RESERVED_DEMAND,
                waiting + " node(s) of reserved demand wait for " + ledger.instanceType() + " in " + ledger.zone(),
                evaluation,
                now);
    }

    private static FleetOutcome reclaimForOperator(
            Ledger ledger, FleetChangeRequested request, Evaluation evaluation, Instant now) {
        if (request.count() == null || request.count() <= 0) {
            return FleetOutcome.refused(
                    request, FleetOutcome.INVALID, "reclaim-spot needs a positive number of nodes", now);
        }
        List<LedgerIndex.Reclaimable> chosen = ledger.newestReclaimable(request.count());
        reclaim(
                ledger,
                chosen,
                Machine.Reclaim.OPERATOR,
                "capacity of " + ledger.instanceType() + " in " + ledger.zone()
                        + " is needed elsewhere (operator reclaim)",
                evaluation,
                now);
        List<String> names = chosen.stream()
                .map(r -> ledger.machineName(r.holding().machine()))
                .sorted()
                .toList();
        return new FleetOutcome(
                request.requestId(),
                request.operation(),
                null,
                names.size() + " of " + request.count()
                        + " spot node(s) asked back"
                        + (names.size() < request.count()
                                ? " (spot pools hold no more that are not " + "already asked back)"
                                : "")
                        + "; they go to maintenance once preempted",
                0,
                0,
                0,
                names,
                now);
    }

    /** Marks the machines asked back and writes one request per spot pool naming its nodes. */
    private static void reclaim(
            Ledger ledger,
            List<LedgerIndex.Reclaimable> chosen,
            Machine.Reclaim why,
            String reason,
            Evaluation evaluation,
            Instant now) {
        Map<String, Set<Long>> byPool = new TreeMap<>();
        chosen.forEach(r -> byPool.computeIfAbsent(r.pool(), p -> new HashSet<>())
                .add(r.holding().grantId()));
        byPool.forEach((key, grants) -> {
            PoolDemand pool = ledger.pool(key);
            List<String> nodes = new ArrayList<>();
            for (long grantId : grants) {
                nodes.add(ledger.machineName(ledger.holding(key, grantId).machine()));
                ledger.reclaim(key, grantId, why);
            }
            nodes.sort(null);
            String id = ledger.key() + "#" + ledger.nextSequence() + "/"
                    + why.name().toLowerCase(Locale.ROOT) + "/" + key;
            evaluation.reclaims.add(new SpotReclaimRequested(id, pool.ref(), nodes, reason, now));
        });
    }

    /**
     * The {@code capacity-checked} of every pool whose allocation, queue place or reason changed, and events. A pool's
     * last published record is exactly the ledger's view of it before the input (grants, demand, queue place) with the
     * reason stored with it, so only the pools the input touched and the waiting ones (whose place, or reason on a
     * later evaluation, may change) can have anything new to say. What a record says besides its grants is compared
     * before and after; its grants changed exactly when the input granted or released one of the pool's.
     */
    private static List<LedgerDecision.PoolUpdate> publish(
            Ledger ledger, Map<String, Integer> placesBefore, Evaluation evaluation, Instant now) {
        List<LedgerDecision.PoolUpdate> updates = new ArrayList<>();
        Map<String, Integer> places = ledger.places();
        Set<String> touched = ledger.touched();
        SortedSet<String> candidates = new TreeSet<>(touched);
        candidates.addAll(placesBefore.keySet());
        candidates.addAll(places.keySet());
        boolean sameQueue = places.equals(placesBefore);
        for (String key : candidates) {
            PoolDemand pool = ledger.pool(key);
            if (pool == null
                    || !touched.contains(key)
                            && sameQueue
                            && Conditions.Capacity.QUEUED_AWAITING_CAPACITY.equals(pool.publishedReason())) {
                // Still waiting in the same place, and already told so.
                continue;
            }
            PoolDemand was = ledger.before(key);
            CapacityChecked published = was == null
                    ? null
                    : checked(key, was, ledger.heldBefore(key), was.publishedReason(), placesBefore, now);
            PoolRef ref = pool.ref();
            int held = ledger.heldCount(key);
            int queued = pool.queued(held);
            int granted = evaluation.grantedNow.getOrDefault(key, 0);
            boolean ownDemand = evaluation.previousDemand.containsKey(key);
            String reason = reason(pool, held, queued, ownDemand, granted);
            CapacityChecked checked = checked(key, pool, held, reason, places, now);
            PoolDemand next = pool;
            // Both carry the same checkedAt: equal, with the same grants, means nothing new to publish.
            if (!checked.equals(published) || ledger.grantsChanged(key)) {
                updates.add(new LedgerDecision.PoolUpdate(key, checked));
                next = next.withPublishedReason(reason);
            }
            if (ownDemand && pool.demand() > evaluation.previousDemand.get(key)) {
                int requested = pool.demand() - evaluation.previousDemand.get(key);
                evaluation.events.add(RecordedEvent.ofPool(
                        ref,
                        CwEvent.CWNodeRequestQueued,
                        "Requested " + requested
                                + " node(s) of " + ref.instanceType() + " in " + ref.zone() + "; " + granted
                                + " granted, " + queued
                                + " queued",
                        ref.uid() + "/demand-" + ledger.nextSequence(),
                        COMPONENT,
                        now));
            }
            if (queued > 0 && pool.insufficientReported() < ref.generation()) {
                evaluation.events.add(RecordedEvent.ofPool(
                        ref,
                        CwEvent.CWInsufficientCapacity,
                        "Insufficient capacity: "
                                + queued + " of " + pool.demand() + " requested node(s) of " + ref.instanceType()
                                + " in " + ref.zone()
                                + " are queued until capacity frees up.",
                        ref.uid() + "/" + ref.generation(),
                        COMPONENT,
                        now));
                next = next.reportedInsufficient(ref.generation());
            }
            if (next != pool) {
                ledger.putPool(key, next);
            }
        }
        evaluation.forgotten.forEach(key -> updates.add(new LedgerDecision.PoolUpdate(key, null)));
        return updates;
    }

    /**
     * The {@code Capacity} reason: all granted is Sufficient; the evaluation of the pool's own new demand says what it
     * found (Partial, NoneAvailable); any later evaluation of a waiting pool says it waits. A pool that asks for
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

    /**
     * A pool's {@code capacity-checked} but its grants (null: those the ledger holds when the record is written): how
     * many nodes it holds and waits for, its place, and what that means.
     */
    private static CapacityChecked checked(
            String key, PoolDemand pool, int held, String reason, Map<String, Integer> places, Instant now) {
        PoolRef ref = pool.ref();
        int queued = pool.queued(held);
        int position = places.getOrDefault(key, 0);
        int length = places.size();
        return new CapacityChecked(
                ref,
                reason,
                pool.demand(),
                null,
                queued,
                queued > 0 ? position : null,
                queued > 0 ? length : null,
                queued > 0
                        ? queuedMessage(queued, position, length, ref)
                        : held == 0 && pool.demand() == 0 ? null : SUFFICIENT_MESSAGE,
                now,
                pool.quotaReason(),
                pool.quotaMessage());
    }
}
