package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Asking spot machines back, for reserved demand that waits or for an operator: exactly the machines needed, once each,
 * the most recently granted first (the least work lost; the longest-running spot nodes keep running), with one request
 * per spot pool naming its nodes.
 */
final class SpotReclaims {

    private SpotReclaims() {}

    /** Reserved demand waits while spot pools hold machines: ask back exactly the machines not yet asked for. */
    static void forReservedDemand(Evaluation evaluation) {
        Ledger ledger = evaluation.ledger;
        int waiting = ledger.reservedDemandWaiting();
        int needed = (int) (waiting - ledger.reclaiming(Machine.Reclaim.RESERVED_DEMAND));
        if (needed <= 0) {
            return;
        }
        reclaim(
                evaluation,
                ledger.newestReclaimable(needed),
                Machine.Reclaim.RESERVED_DEMAND,
                waiting + " node(s) of reserved demand wait for " + ledger.instanceType() + " in " + ledger.zone());
    }

    /**
     * An operator's {@code reclaim-spot}: asks back up to the nodes requested, which go to maintenance once released.
     */
    static FleetOutcome forOperator(Evaluation evaluation, FleetChangeRequested request) {
        Ledger ledger = evaluation.ledger;
        if (request.count() == null || request.count() <= 0) {
            return FleetOutcome.refused(
                    request, FleetOutcome.INVALID, "reclaim-spot needs a positive number of nodes", evaluation.now);
        }
        List<LedgerIndex.Reclaimable> chosen = ledger.newestReclaimable(request.count());
        reclaim(
                evaluation,
                chosen,
                Machine.Reclaim.OPERATOR,
                "capacity of " + ledger.instanceType() + " in " + ledger.zone()
                        + " is needed elsewhere (operator reclaim)");
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
                evaluation.now);
    }

    /** Marks the machines asked back and writes one request per spot pool naming its nodes. */
    private static void reclaim(
            Evaluation evaluation, List<LedgerIndex.Reclaimable> chosen, Machine.Reclaim why, String reason) {
        Ledger ledger = evaluation.ledger;
        Map<String, Set<Long>> byPool = new TreeMap<>();
        chosen.forEach(r -> byPool.computeIfAbsent(r.pool(), p -> new HashSet<>())
                .add(r.holding().grantId()));
        byPool.forEach((key, grants) -> {
            PoolDemand pool = ledger.pool(key);
            List<String> nodes = new ArrayList<>();
            for (long grantId : grants) {
                nodes.add(ledger.machineName(ledger.holding(key, grantId).machine()));
                evaluation.changes.reclaim(key, grantId, why);
            }
            nodes.sort(null);
            String id = ledger.key() + "#" + ledger.nextSequence() + "/"
                    + why.name().toLowerCase(Locale.ROOT) + "/" + key;
            evaluation.reclaims.add(new SpotReclaimRequested(id, pool.ref(), nodes, reason, evaluation.now));
        });
    }
}
