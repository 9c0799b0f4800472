package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The short version of {@code ./stack chaos}, on the stack of the fault tests ({@link SystemStack#forFaults()}): one
 * round of each fault (kill -9 of each service, kill -9 of the broker, a service paused past its session timeout) under
 * the mixed load, then the invariants from the topics. Nothing acknowledged may be lost or duplicated, nothing
 * oversold, no status may differ from its facts, and the stack must recover from every fault. The whole table is in the
 * failure message and the log.
 */
class ChaosIT {

    private static final Logger LOG = Logger.getLogger(ChaosIT.class.getName());

    @Test
    void oneRoundOfEachFaultLosesDuplicatesAndOversellsNothing() {
        long started = System.nanoTime();
        ChaosRun chaos = new ChaosRun(
                SystemStack.forFaults(),
                new ChaosRun.Settings(
                        1,
                        Duration.ofSeconds(15),
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(3),
                        Duration.ofSeconds(180),
                        Duration.ofSeconds(150),
                        20261123L));
        FaultTable table = chaos.run();
        String report = chaos.report(table, Duration.ofNanos(System.nanoTime() - started));
        LOG.info(report);

        assertThat(table.total().acknowledged)
                .as("requests the load got acknowledged\n%s", report)
                .isGreaterThan(50);
        assertThat(table.total().unrecovered)
                .as("faults the stack did not recover from\n%s", report)
                .isZero();
        assertThat(table.total().lost)
                .as("acknowledged requests or poison records lost\n%s", report)
                .isZero();
        assertThat(table.total().duplicated)
                .as("requests, poison records or nodes duplicated\n%s", report)
                .isZero();
        assertThat(table.total().oversold)
                .as("machines in two pools or orgs above quota\n%s", report)
                .isZero();
        assertThat(table.total().mismatches)
                .as("published statuses that differ from their facts\n%s", report)
                .isZero();
    }
}
