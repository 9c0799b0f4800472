package com.coreweave.nodepool.capacity.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;

/** The capacity-service's own settings. */
@ConfigMapping(prefix = "nodepool.capacity")
public interface CapacitySettings {

    /** The classpath resource holding the instance-type catalogue (YAML). */
    @WithDefault("instance-types.yaml")
    String catalogue();

    /** How long an admin fleet call waits for the ledger to apply the change before answering 202 Accepted. */
    @WithName("fleet-change-timeout")
    @WithDefault("10s")
    Duration fleetChangeTimeout();

    /** How often an admin fleet call looks at the ledger while it waits for its change to be applied. */
    @WithName("fleet-change-poll-interval")
    @WithDefault("50ms")
    Duration fleetChangePollInterval();

    /**
     * The most machines one zone × instance type may hold (in service, maintenance or retired). A ledger is stored a
     * record per pool and per machine out of service, and an input costs what it changes, so the bound is the memory of
     * the service (a ledger is kept in memory, about 100 bytes per allocated machine), not the record size.
     */
    @WithName("max-machines")
    @WithDefault("50000")
    int maxMachines();

    /** How many applied fleet changes each ledger remembers (their outcomes answer admin calls and dedupe repeats). */
    @WithName("remembered-fleet-changes")
    @WithDefault("100")
    int rememberedFleetChanges();
}
