package com.coreweave.nodepool.provisioner.domain;

import java.time.Duration;
import java.util.Set;

/**
 * How the simulated fleet boots nodes and how long nodes take to leave: boot time, the deterministic share of failed
 * boots (and images that never boot), the failure streak that disables a pool, the default drain grace period, and
 * how many nodes of a pool a reconfigure reboot takes down at once.
 */
public record ProvisioningPolicy(Duration bootTime, double bootFailureRate, long bootFailureSeed,
                                 Set<String> failingImages, int maxConsecutiveBootFailures, Duration drainGrace,
                                 int maxConcurrentReboots) {

  public ProvisioningPolicy {
    if (bootFailureRate < 0.0 || bootFailureRate > 1.0) {
      throw new IllegalArgumentException("provisioner.boot-failure-rate must be within 0.0 and 1.0, was "
          + bootFailureRate);
    }
    if (maxConsecutiveBootFailures < 1) {
      throw new IllegalArgumentException("provisioner.max-consecutive-boot-failures must be at least 1, was "
          + maxConsecutiveBootFailures);
    }
    if (maxConcurrentReboots < 1) {
      throw new IllegalArgumentException("provisioner.max-concurrent-reboots must be at least 1, was "
          + maxConcurrentReboots);
    }
    failingImages = Set.copyOf(failingImages);
  }
}
