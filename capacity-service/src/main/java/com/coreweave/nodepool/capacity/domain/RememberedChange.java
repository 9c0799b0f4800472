package com.coreweave.nodepool.capacity.domain;

/** The outcome of the {@code number}-th fleet change a ledger applied, remembered for admin calls and repeats. */
public record RememberedChange(long number, FleetOutcome outcome) implements LedgerRecord {}
