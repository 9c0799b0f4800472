package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What an input tells pools: the {@code capacity-checked} records to publish, with their {@code Capacity} reason and
 * message, and the events of demand queued and capacity insufficient. A record is said without its grants, which it
 * lists as the ledger holds them when it is written ({@link Ledger#withGrants}).
 */
final class CapacityChecks {

    /** The reference's message of a pool whose nodes are all granted. */
    static final String SUFFICIENT_MESSAGE = "Sufficient capacity available for the requested instance type.";

    private CapacityChecks() {}

    /**
     * The decision on an input that could not be applied: a pool whose demand it was gets the reference's
     * {@code InternalError}, keeping what it holds, until its next check.
     */
    static LedgerDecision failed(LedgerInput input, RuntimeException error, Instant now) {
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

    /**
     * The {@code capacity-checked} of every pool whose allocation, queue place or reason changed, and events. A pool's
     * last published record is exactly the ledger's view of it before the input (grants, demand, queue place) with the
     * reason stored with it, so only the pools the input touched and the waiting ones (whose place, or reason on a
     * later evaluation, may change) can have anything new to say. What a record says besides its grants is compared
     * before and after; its grants changed exactly when the input granted or released one of the pool's.
     */
    static List<LedgerDecision.PoolUpdate> publish(Evaluation evaluation, Map<String, Integer> placesBefore) {
        Ledger ledger = evaluation.ledger;
        LedgerChanges changes = evaluation.changes;
        Instant now = evaluation.now;
        List<LedgerDecision.PoolUpdate> updates = new ArrayList<>();
        Map<String, Integer> places = ledger.places();
        Set<String> touched = changes.touched();
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
            PoolDemand was = changes.before(key);
            CapacityChecked published = was == null
                    ? null
                    : checked(key, was, changes.heldBefore(key), was.publishedReason(), placesBefore, now);
            PoolRef ref = pool.ref();
            int held = ledger.heldCount(key);
            int queued = pool.queued(held);
            int granted = evaluation.grantedNow.getOrDefault(key, 0);
            boolean ownDemand = evaluation.previousDemand.containsKey(key);
            String reason = reason(pool, held, queued, ownDemand, granted);
            CapacityChecked checked = checked(key, pool, held, reason, places, now);
            PoolDemand next = pool;
            // Both carry the same checkedAt: equal, with the same grants, means nothing new to publish.
            if (!checked.equals(published) || changes.grantsChanged(key)) {
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
                        CapacityLedger.COMPONENT,
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
                        CapacityLedger.COMPONENT,
                        now));
                next = next.reportedInsufficient(ref.generation());
            }
            if (next != pool) {
                changes.putPool(key, next);
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
    static String queuedMessage(int queued, int position, int length, PoolRef pool) {
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
