package com.coreweave.nodepool.provisioner.domain.fleet;

import java.time.Duration;

/**
 * How node-health remediation is paced: a pool whose {@code spec.disruption.budgets} govern no {@code Unhealthy}
 * disruption has at most {@code maxUnhealthyPercent} of its nodes (rounded up) out of service for remediation at once,
 * a Reboot alert raised {@code flapThreshold} times within {@code flapWindow} takes its node out of service instead,
 * and a node leaving the pool gets {@code prepareForTerminate} between the signal to prepare for termination and its
 * removal.
 */
public record RepairPolicy(
        int maxUnhealthyPercent, int flapThreshold, Duration flapWindow, Duration prepareForTerminate) {

    public static final RepairPolicy DEFAULTS = new RepairPolicy(20, 3, Duration.ofMinutes(30), Duration.ofSeconds(10));

    public RepairPolicy {
        if (maxUnhealthyPercent < 0 || maxUnhealthyPercent > 100) {
            throw new IllegalArgumentException(
                    "provisioner.health.max-unhealthy-percent must be within 0 and 100, was " + maxUnhealthyPercent);
        }
        if (flapThreshold < 2) {
            throw new IllegalArgumentException(
                    "provisioner.health.flap-threshold must be at least 2, was " + flapThreshold);
        }
        if (flapWindow.isNegative() || flapWindow.isZero() || prepareForTerminate.isNegative()) {
            throw new IllegalArgumentException("provisioner.health durations must be positive");
        }
    }
}
