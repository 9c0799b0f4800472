package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import java.time.Duration;
import java.util.logging.Logger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The short version of {@code ./stack chaos --cluster}, a fault round: not in {@code ./stack test} (its tag is excluded
 * there; {@code ./stack test --faults} runs it), on a cluster of its own (three brokers, two instances of the
 * api-service and the provisioner, the two services it kills, and one of the others): under the mixed load, the broker
 * leading the most partitions is killed -9, then one instance of the api-service and one of the provisioner (whose
 * tasks their standbys on the other instances take over). Meanwhile a client creates pools one after another
 * ({@link FirstTries}): losing an instance must cost it little, at least 99 % of its creates answered at the first try
 * within 10 s. Then the invariants from the topics: nothing acknowledged may be lost or duplicated, nothing oversold,
 * no status may differ from its facts, and the stack must recover from every fault. The whole table is in the failure
 * message and the log. Every fault on a single broker, and the rolling restarts, are {@code ./stack chaos}'s.
 */
@StackUse.Own
@Tag(ClusterFailoverIT.FAULT_ROUND)
class ClusterFailoverIT {

    /** The tag of the fault rounds, which {@code ./stack test} leaves out (this module's pom). */
    static final String FAULT_ROUND = "fault-round";

    private static final Logger LOG = Logger.getLogger(ClusterFailoverIT.class.getName());

    @Test
    void aBrokerKillAndAnInstanceKillUnderLoadLoseNothing() {
        long started = System.nanoTime();
        try (Stack cluster = SystemStack.configured()
                .withCluster()
                .withOneInstanceOf(Service.QUOTA, Service.CAPACITY, Service.PREEMPTION)
                .build()
                .start()) {
            run(cluster, started);
        }
    }

    private static void run(Stack cluster, long started) {
        ChaosRun chaos = new ChaosRun(
                cluster,
                new ChaosRun.Settings(
                        1,
                        Duration.ofSeconds(15),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(3),
                        Duration.ofSeconds(180),
                        Duration.ofSeconds(150),
                        20261127L),
                fault -> fault.kind() == ChaosRun.Kind.KILL_BROKER
                        || (fault.kind() == ChaosRun.Kind.KILL
                                && (fault.service() == Service.API || fault.service() == Service.PROVISIONER)));
        FaultTable table = chaos.measuringFirstTries().run();
        String report = chaos.report(table, Duration.ofNanos(System.nanoTime() - started));
        LOG.info(report);

        assertThat(table.faults()).as("faults injected\n%s", report).hasSize(3);
        FirstTries firstTries = chaos.firstTries();
        LOG.info(firstTries.report());
        assertThat(firstTries.creates)
                .as("creates one after another during the faults\n%s", report)
                .hasSizeGreaterThanOrEqualTo(20)
                .allMatch(FirstTries.Create::made);
        // The broker kill's share is reported, not held: a create sent as the broker dies can still wait past the 15 s
        // request timeout. The instance kills are held to 85 % here, not the 99 % goal: with ~20 creates one miss is
        // 95 %, and on a loaded 2-core CI machine a create cut in flight by the kill can just pass 10 s
        // (docs/reliability.md).
        assertThat(firstTries.share(c -> !c.fault().contains("broker")))
                .as("creates answered at the first try within 10 s while an instance was lost\n%s", report)
                .isGreaterThanOrEqualTo(0.85);
        assertThat(table.total().acknowledged)
                .as("requests the load got acknowledged\n%s", report)
                .isGreaterThan(20);
        assertThat(table.total().unrecovered)
                .as("faults the cluster did not recover from\n%s", report)
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
