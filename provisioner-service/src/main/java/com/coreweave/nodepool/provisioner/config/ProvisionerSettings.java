package com.coreweave.nodepool.provisioner.config;

import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaults;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.fleet.RepairPolicy;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** The provisioner's own settings: how the simulated fleet boots nodes, and how long the durable timers run. */
@ConfigMapping(prefix = "provisioner")
public interface ProvisionerSettings {

    /** How long a node boots before it registers (or fails to); seconds in the demo, milliseconds in tests. */
    @WithName("boot-time")
    @WithDefault("10s")
    Duration bootTime();

    /** The share of boot attempts that fail, 0.0 to 1.0, decided deterministically per machine and attempt. */
    @WithName("boot-failure-rate")
    @WithDefault("0.0")
    double bootFailureRate();

    /** Seeds the deterministic choice of failing boots, deliveries, removals and stagings. */
    @WithName("boot-failure-seed")
    @WithDefault("0")
    long bootFailureSeed();

    /** Boot images ({@code spec.image.name}) that never boot: simulates a misconfigured image. */
    @WithName("failing-images")
    Optional<Set<String>> failingImages();

    /** Boot failures in a row after which a pool is disabled instead of booting again. */
    @WithName("max-consecutive-boot-failures")
    @WithDefault("3")
    int maxConsecutiveBootFailures();

    /** How long a drained node waits for its workload when the workload reported no grace period of its own. */
    @WithName("drain-grace")
    @WithDefault("30s")
    Duration drainGrace();

    /** Nodes of one pool a reconfigure reboot takes down at once; the others keep serving until their turn. */
    @WithName("max-concurrent-reboots")
    @WithDefault("1")
    int maxConcurrentReboots();

    /** How long every node of an autoscaled pool must be busy before the autoscaler adds one. */
    @WithName("autoscaler.scale-up-after")
    @WithDefault("30s")
    Duration scaleUpAfter();

    /**
     * How long a node of an autoscaled pool must be idle before the autoscaler removes it (cluster-autoscaler: 10m).
     */
    @WithName("autoscaler.scale-down-unneeded-time")
    @WithDefault("10m")
    Duration scaleDownUnneededTime();

    /** The share of granted machines the fleet fails to deliver (they go to maintenance; another is granted). */
    @WithName("delivery-failure-rate")
    @WithDefault("0.0")
    double deliveryFailureRate();

    /** The share of node removals that fail; a failed removal is tried again after the retry interval. */
    @WithName("removal-failure-rate")
    @WithDefault("0.0")
    double removalFailureRate();

    /** The share of configuration stagings onto a node (before its reconfigure reboot) that fail, then are retried. */
    @WithName("staging-failure-rate")
    @WithDefault("0.0")
    double stagingFailureRate();

    /** How long a failed node removal or configuration staging waits before it is tried again. */
    @WithName("retry-interval")
    @WithDefault("5s")
    Duration retryInterval();

    /** The share of a pool's nodes (at least one) that node-health remediation takes out at once. */
    @WithName("health.max-unhealthy-percent")
    @WithDefault("20")
    int maxUnhealthyPercent();

    /** A Reboot alert raised this many times within the flap window takes its node out of service instead. */
    @WithName("health.flap-threshold")
    @WithDefault("3")
    int flapThreshold();

    /** The window in which the raises of a flapping alert are counted. */
    @WithName("health.flap-window")
    @WithDefault("30m")
    Duration flapWindow();

    /** How long a node signalled to prepare for termination gets before it is removed. */
    @WithName("health.prepare-for-terminate")
    @WithDefault("10s")
    Duration prepareForTerminate();

    /** How often the durable boot and drain deadlines are checked. */
    @WithName("timer-interval")
    @WithDefault("1s")
    Duration timerInterval();

    /** The rules the reconciler applies, as plain values. */
    default ProvisioningPolicy policy() {
        return new ProvisioningPolicy(
                bootTime(),
                bootFailureRate(),
                bootFailureSeed(),
                failingImages().orElse(Set.of()),
                maxConsecutiveBootFailures(),
                drainGrace(),
                maxConcurrentReboots(),
                scaleUpAfter(),
                scaleDownUnneededTime(),
                new FleetFaults(deliveryFailureRate(), removalFailureRate(), stagingFailureRate(), retryInterval()),
                new RepairPolicy(maxUnhealthyPercent(), flapThreshold(), flapWindow(), prepareForTerminate()));
    }
}
