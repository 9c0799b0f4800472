package com.coreweave.nodepool.provisioner.config;

import com.coreweave.nodepool.provisioner.domain.ProvisioningPolicy;
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

  /** Seeds the deterministic choice of failing boots, so another seed fails other machines. */
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

  /** How long a node of an autoscaled pool must be idle before the autoscaler removes it (cluster-autoscaler: 10m). */
  @WithName("autoscaler.scale-down-unneeded-time")
  @WithDefault("10m")
  Duration scaleDownUnneededTime();

  /** How often the durable boot and drain deadlines are checked. */
  @WithName("timer-interval")
  @WithDefault("1s")
  Duration timerInterval();

  /** The rules the reconciler applies, as plain values. */
  default ProvisioningPolicy policy() {
    return new ProvisioningPolicy(bootTime(), bootFailureRate(), bootFailureSeed(),
        failingImages().orElse(Set.of()), maxConsecutiveBootFailures(), drainGrace(), maxConcurrentReboots(),
        scaleUpAfter(), scaleDownUnneededTime());
  }
}
