package com.coreweave.nodepool.capacity.domain;

/**
 * A machine in maintenance or retired, by its index. Machines {@code 1..machineCount} are free unless a pool holds them
 * or a record of this kind takes them out of service, so a free machine costs no record.
 */
public record OutOfService(int machine, Machine.Status status) implements LedgerRecord {}
