package com.coreweave.nodepool.capacity.domain;

/**
 * The head record of one ledger: the counters that outlive any one of its pools, machines or fleet changes.
 *
 * <ul>
 *   <li>{@code sequence} counts the inputs that changed the ledger: deterministic ids of its outputs come from it, and
 *       an input that changes nothing writes nothing, so it does not count.
 *   <li>Grant ids ({@code lastGrantId}) and queue tickets ({@code lastTicket}) only ever grow.
 *   <li>Machines {@code 1..machineCount} exist, retired ones included.
 *   <li>{@code fleetChangesRecorded} numbers the fleet changes applied so far.
 * </ul>
 */
public record LedgerHead(
        String zone,
        String instanceType,
        long sequence,
        long lastGrantId,
        long lastTicket,
        int machineCount,
        long fleetChangesRecorded)
        implements LedgerRecord {}
