package com.coreweave.nodepool.provisioner.domain.fleet;

import java.time.Duration;
import java.util.Set;

/**
 * How the simulated fleet boots nodes and how long nodes take to leave: boot time, the deterministic share of failed
 * boots (and images that never boot), the failure streak that disables a pool, the default drain grace period, how many
 * nodes of a pool a reconfigure reboot takes down at once, when the autoscaler of a pool with {@code autoscaling: true}
 * adds a node (every node busy this long) or removes one (idle this long), the fleet's other failures, and how
 * node-health remediation is paced.
 */
public record ProvisioningPolicy(
        Duration bootTime,
        double bootFailureRate,
        long bootFailureSeed,
        Set<String> failingImages,
        int maxConsecutiveBootFailures,
        Duration drainGrace,
        int maxConcurrentReboots,
        Duration scaleUpAfter,
        Duration scaleDownUnneededTime,
        FleetFaults faults,
        RepairPolicy repair) {

    /**
     * The autoscaler's defaults: one busy half-minute to grow, ten idle minutes to shrink (the cluster-autoscaler's).
     */
    public static final Duration SCALE_UP_AFTER = Duration.ofSeconds(30);

    public static final Duration SCALE_DOWN_UNNEEDED_TIME = Duration.ofMinutes(10);

    public ProvisioningPolicy {
        if (bootFailureRate < 0.0 || bootFailureRate > 1.0) {
            throw new IllegalArgumentException(
                    "provisioner.boot-failure-rate must be within 0.0 and 1.0, was " + bootFailureRate);
        }
        if (maxConsecutiveBootFailures < 1) {
            throw new IllegalArgumentException(
                    "provisioner.max-consecutive-boot-failures must be at least 1, was " + maxConsecutiveBootFailures);
        }
        if (maxConcurrentReboots < 1) {
            throw new IllegalArgumentException(
                    "provisioner.max-concurrent-reboots must be at least 1, was " + maxConcurrentReboots);
        }
        if (scaleUpAfter.isNegative() || scaleDownUnneededTime.isNegative()) {
            throw new IllegalArgumentException("provisioner.autoscaler durations must not be negative");
        }
        failingImages = Set.copyOf(failingImages);
    }

    /** A fleet that fails nothing but boots, with the default repair pacing. */
    public ProvisioningPolicy(
            Duration bootTime,
            double bootFailureRate,
            long bootFailureSeed,
            Set<String> failingImages,
            int maxConsecutiveBootFailures,
            Duration drainGrace,
            int maxConcurrentReboots,
            Duration scaleUpAfter,
            Duration scaleDownUnneededTime) {
        this(
                bootTime,
                bootFailureRate,
                bootFailureSeed,
                failingImages,
                maxConsecutiveBootFailures,
                drainGrace,
                maxConcurrentReboots,
                scaleUpAfter,
                scaleDownUnneededTime,
                FleetFaults.NONE,
                RepairPolicy.DEFAULTS);
    }

    public ProvisioningPolicy withFaults(FleetFaults next) {
        return new ProvisioningPolicy(
                bootTime,
                bootFailureRate,
                bootFailureSeed,
                failingImages,
                maxConsecutiveBootFailures,
                drainGrace,
                maxConcurrentReboots,
                scaleUpAfter,
                scaleDownUnneededTime,
                next,
                repair);
    }

    public ProvisioningPolicy withRepair(RepairPolicy next) {
        return new ProvisioningPolicy(
                bootTime,
                bootFailureRate,
                bootFailureSeed,
                failingImages,
                maxConsecutiveBootFailures,
                drainGrace,
                maxConcurrentReboots,
                scaleUpAfter,
                scaleDownUnneededTime,
                faults,
                next);
    }
}
