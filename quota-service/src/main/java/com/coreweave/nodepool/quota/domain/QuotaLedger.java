package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.quota.domain.QuotaInput.LimitRemoved;
import com.coreweave.nodepool.quota.domain.QuotaInput.LimitSet;
import com.coreweave.nodepool.quota.domain.QuotaInput.PoolChanged;
import com.coreweave.nodepool.quota.domain.QuotaInput.PoolGone;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One org's quota for one zone and instance type and every live pool that draws on it: the state the quota processor
 * keeps per {@code <org>/<zone>/<instanceType>}, where one partition means one writer, so two pools can never both be
 * admitted past the limit. {@link #apply} returns the next ledger and never changes this one.
 *
 * <p>Rules: a pool is admitted its whole request or keeps what it held (no partial scale-up); a scale-down is always
 * admitted; a lowered or removed quota takes no admitted node away; whenever room may have appeared, the pools that
 * wait are admitted first-fit in the order they started waiting.
 */
public record QuotaLedger(QuotaKey key, Integer limit, Instant limitSetAt, SortedMap<String, PoolEntry> pools) {

    public QuotaLedger {
        Objects.requireNonNull(key, "key");
        pools = Collections.unmodifiableSortedMap(new TreeMap<>(pools == null ? Map.of() : pools));
    }

    public static QuotaLedger empty(QuotaKey key) {
        return new QuotaLedger(key, null, null, null);
    }

    /** Nothing left to keep: no quota and no pool. */
    @JsonIgnore
    public boolean isEmpty() {
        return limit == null && pools.isEmpty();
    }

    /** The org's admitted nodes of this zone and type: what counts against the quota. */
    @JsonIgnore
    public int usage() {
        // Admission keeps the sum within a limit that is an int, and nothing else raises it, so this cannot overflow.
        return Math.toIntExact(
                pools.values().stream().mapToLong(PoolEntry::admitted).sum());
    }

    /** The ledger after {@code input}; throws for an input that cannot be checked (e.g. a negative target). */
    public QuotaLedger apply(QuotaInput input, Instant now) {
        QuotaLedger next = switch (input) {
            case PoolChanged changed -> withDemand(changed.demand(), now);
            case PoolGone gone -> without(gone);
            case LimitSet set -> new QuotaLedger(key, set.maxNodes(), set.setAt(), pools);
            case LimitRemoved removed -> new QuotaLedger(key, null, null, pools);
        };
        return next.admitWaiting();
    }

    /**
     * The ledger after {@code input} could not be applied: the pool it is about (every pool, for a quota change)
     * reports the error and keeps the nodes it held until its next change is checked.
     */
    public QuotaLedger failed(QuotaInput input, String error) {
        SortedMap<String, PoolEntry> next = new TreeMap<>(pools);
        if (input instanceof PoolChanged changed) {
            PoolDemand demand = changed.demand();
            PoolEntry held = sameIncarnation(demand) ? pools.get(demand.pool()) : null;
            next.put(
                    demand.pool(),
                    new PoolEntry(
                            demand.ref(),
                            demand.requested(),
                            held == null ? 0 : held.admitted(),
                            demand.valid(),
                            demand.deleting(),
                            null,
                            error));
        } else {
            next.replaceAll((pool, entry) -> entry.withFailure(error));
        }
        return new QuotaLedger(key, limit, limitSetAt, next);
    }

    private QuotaLedger withDemand(PoolDemand demand, Instant now) {
        boolean same = sameIncarnation(demand);
        PoolEntry held = same ? pools.get(demand.pool()) : null;
        if (held != null && demand.ref().generation() < held.ref().generation()) {
            return this;
        }
        PoolEntry next;
        if (!demand.checked()) {
            next = new PoolEntry(demand.ref(), demand.requested(), 0, demand.valid(), demand.deleting(), null, null);
        } else {
            if (demand.requested() < 0) {
                throw new IllegalArgumentException("targetNodes " + demand.requested() + " is negative");
            }
            // A scale-down is always admitted; a scale-up keeps what the pool held until the whole request fits.
            int kept = Math.min(held == null ? 0 : held.admitted(), demand.requested());
            Instant since = demand.requested() > kept
                    ? Objects.requireNonNullElse(held == null ? null : held.waitingSince(), now)
                    : null;
            next = new PoolEntry(demand.ref(), demand.requested(), kept, true, false, since, null);
        }
        SortedMap<String, PoolEntry> changed = new TreeMap<>(pools);
        changed.put(demand.pool(), next);
        return new QuotaLedger(key, limit, limitSetAt, changed);
    }

    private QuotaLedger without(PoolGone gone) {
        PoolEntry held = pools.get(gone.pool());
        if (held == null || !held.ref().uid().equals(gone.uid())) {
            return this;
        }
        SortedMap<String, PoolEntry> changed = new TreeMap<>(pools);
        changed.remove(gone.pool());
        return new QuotaLedger(key, limit, limitSetAt, changed);
    }

    private boolean sameIncarnation(PoolDemand demand) {
        PoolEntry held = pools.get(demand.pool());
        return held != null && held.ref().uid().equals(demand.ref().uid());
    }

    /** Admits every waiting pool whose whole request now fits, first-fit in the order they started waiting. */
    private QuotaLedger admitWaiting() {
        if (limit == null) {
            return this;
        }
        List<Map.Entry<String, PoolEntry>> waiting = pools.entrySet().stream()
                .filter(e -> e.getValue().waiting())
                .sorted(Comparator.comparing(
                                (Map.Entry<String, PoolEntry> e) -> e.getValue().waitingSince(),
                                Comparator.nullsLast(Comparator.naturalOrder()))
                        .thenComparing(Map.Entry::getKey))
                .toList();
        if (waiting.isEmpty()) {
            return this;
        }
        SortedMap<String, PoolEntry> next = new TreeMap<>(pools);
        long usage = usage();
        for (Map.Entry<String, PoolEntry> e : waiting) {
            PoolEntry pool = e.getValue();
            long after = usage - pool.admitted() + pool.requested();
            if (after <= limit) {
                next.put(e.getKey(), pool.admittedInFull());
                usage = after;
            }
        }
        return new QuotaLedger(key, limit, limitSetAt, next);
    }
}
