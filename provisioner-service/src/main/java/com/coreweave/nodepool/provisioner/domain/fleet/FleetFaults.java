package com.coreweave.nodepool.provisioner.domain.fleet;

import com.coreweave.nodepool.kit.faults.InjectedFaults;
import java.time.Duration;

/**
 * The failures the simulated fleet injects besides failed boots, each decided deterministically per machine and
 * attempt: a granted machine that cannot be delivered ({@code CWNodeDeliverFail}; it goes to maintenance and another is
 * granted), a node removal that fails ({@code CWNodePoolNodesRemoveError}) and a configuration that cannot be staged
 * onto a node for its reconfigure reboot ({@code CWNodeConfigStagingFailed}); the last two are tried again after
 * {@code retryInterval}. {@code injected} holds what an operator armed besides ({@link FleetFaultPoints}).
 */
public record FleetFaults(
        double deliveryFailureRate,
        double removalFailureRate,
        double stagingFailureRate,
        Duration retryInterval,
        InjectedFaults injected) {

    public static final FleetFaults NONE = new FleetFaults(0.0, 0.0, 0.0, Duration.ofSeconds(5));

    public FleetFaults {
        for (double rate : new double[] {deliveryFailureRate, removalFailureRate, stagingFailureRate}) {
            if (rate < 0.0 || rate > 1.0) {
                throw new IllegalArgumentException("provisioner failure rates must be within 0.0 and 1.0, was " + rate);
            }
        }
        if (retryInterval.isNegative()) {
            throw new IllegalArgumentException("provisioner.retry-interval must not be negative");
        }
    }

    public FleetFaults(
            double deliveryFailureRate, double removalFailureRate, double stagingFailureRate, Duration retryInterval) {
        this(deliveryFailureRate, removalFailureRate, stagingFailureRate, retryInterval, InjectedFaults.OFF);
    }

    /** The same rates, with the faults an operator arms at {@code injected}. */
    public FleetFaults withInjected(InjectedFaults next) {
        return new FleetFaults(deliveryFailureRate, removalFailureRate, stagingFailureRate, retryInterval, next);
    }
}
