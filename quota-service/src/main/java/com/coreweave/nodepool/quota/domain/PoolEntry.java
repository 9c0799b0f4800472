package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.PoolRef;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/**
 * One pool as its quota ledger holds it: what it asks for ({@code requested}), what it is admitted to hold
 * ({@code admitted} never exceeds {@code requested}), since when it waits for more, and the error of its last check if
 * that check failed.
 */
public record PoolEntry(
        PoolRef ref,
        int requested,
        int admitted,
        boolean valid,
        boolean deleting,
        Instant waitingSince,
        String failure) {

    /** Asks for more than it holds and could be given it: the ledger admits it as soon as the whole request fits. */
    @JsonIgnore
    public boolean waiting() {
        return valid && !deleting && failure == null && requested > admitted;
    }

    /** The whole request admitted: the pool no longer waits. */
    PoolEntry admittedInFull() {
        return new PoolEntry(ref, requested, requested, valid, deleting, null, failure);
    }

    PoolEntry withFailure(String error) {
        return new PoolEntry(ref, requested, admitted, valid, deleting, waitingSince, error);
    }
}
