package com.coreweave.nodepool.provisioner.domain;

import java.time.Duration;

/**
 * How node-health remediation is paced: at most {@code maxUnhealthyPercent} of a pool's nodes (and at least one) are
 * out for remediation at once, a Reboot alert raised {@code flapThreshold} times within {@code flapWindow} takes its
 * node out of service instead, and a node leaving the pool gets {@code prepareForTerminate} between the signal to
 * prepare for termination and its removal.
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

    /** How many of a pool of {@code nodes} may be out for remediation at once: the percentage, and at least one. */
    int budget(int nodes) {
        return Math.max(1, nodes * maxUnhealthyPercent / 100);
    }
}
