package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.QuotaChecked;
import java.time.Instant;
import java.util.List;

/**
 * What an org (or an operator) reads about one quota: the limit, what its pools use and ask for, what is free, and each
 * pool's decision, so a user can see why a pool is not growing. {@code maxNodes} and {@code freeNodes} are null when no
 * quota is set.
 */
public record QuotaUsage(
        String org,
        String zone,
        String instanceType,
        Integer maxNodes,
        Instant setAt,
        int usedNodes,
        long requestedNodes,
        Integer freeNodes,
        List<PoolUsage> pools) {

    /** One pool's share: what it asks for, what it holds, and the {@code Quota} reason and message it reports. */
    public record PoolUsage(
            String name,
            String uid,
            long generation,
            int requestedNodes,
            int admittedNodes,
            String reason,
            String message,
            Instant waitingSince) {}

    public static QuotaUsage of(QuotaLedger ledger) {
        var decisions = QuotaDecider.decisions(ledger);
        List<PoolUsage> pools = ledger.pools().entrySet().stream()
                .map(e -> {
                    PoolEntry entry = e.getValue();
                    QuotaChecked decision = decisions.get(e.getKey());
                    return new PoolUsage(
                            entry.ref().pool(),
                            entry.ref().uid(),
                            entry.ref().generation(),
                            entry.requested(),
                            entry.admitted(),
                            decision.reason(),
                            decision.message(),
                            entry.waitingSince());
                })
                .toList();
        long requested = ledger.pools().values().stream()
                .filter(p -> p.valid() && !p.deleting())
                .mapToLong(PoolEntry::requested)
                .sum();
        int used = ledger.usage();
        Integer free = ledger.limit() == null ? null : Math.max(0, ledger.limit() - used);
        return new QuotaUsage(
                ledger.key().org(),
                ledger.key().zone(),
                ledger.key().instanceType(),
                ledger.limit(),
                ledger.limitSetAt(),
                used,
                requested,
                free,
                pools);
    }
}
