package com.coreweave.nodepool.capacity.domain;

import java.time.Instant;

/**
 * A machine a pool holds, as the {@code ledgers} store keeps it: one record per grant under the pool's own key
 * ({@link LedgerKeys#held}), so that a grant or a release writes this record alone, whatever the pool's size.
 */
public record HeldMachine(String pool, int machine, long grantId, Instant grantedAt, Machine.Reclaim reclaim)
        implements LedgerRecord {

    static HeldMachine of(String pool, Holding holding) {
        return new HeldMachine(pool, holding.machine(), holding.grantId(), holding.grantedAt(), holding.reclaim());
    }

    Holding holding() {
        return new Holding(machine, grantId, grantedAt, reclaim);
    }
}
