package com.coreweave.nodepool.capacity.domain;

import java.time.Instant;

/**
 * A machine a pool holds, by its index in the ledger: under which grant ({@code grantId} is unique per allocation, so a
 * release names exactly the grant it ends), since when, and whether it is asked back ({@code reclaim}, never twice).
 */
public record Holding(int machine, long grantId, Instant grantedAt, Machine.Reclaim reclaim) {

    Holding reclaimed(Machine.Reclaim why) {
        return new Holding(machine, grantId, grantedAt, why);
    }
}
