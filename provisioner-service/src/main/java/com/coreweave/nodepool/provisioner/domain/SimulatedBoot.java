package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.nio.charset.StandardCharsets;

/**
 * Decides whether one boot attempt of the simulated fleet fails: always for an image listed as failing, otherwise
 * when a hash of (machine, attempt, seed) falls below the failure rate. Deterministic, so a replay after a crash
 * decides the same way and tests can rely on it.
 */
public final class SimulatedBoot {

  private SimulatedBoot() {
  }

  /** Why the attempt failed, or null when the node registers. */
  public static String failure(ProvisioningPolicy policy, NodePoolSpec spec, String machine, int attempt) {
    String image = spec.image() == null ? null : spec.image().name();
    if (image != null && policy.failingImages().contains(image)) {
      return "Node " + machine + " did not register: image " + image + " does not boot (attempt " + attempt + ").";
    }
    if (draw(machine, attempt, policy.bootFailureSeed()) < policy.bootFailureRate()) {
      return "Node " + machine + " did not register: the kubelet did not join the cluster (attempt " + attempt + ").";
    }
    return null;
  }

  /** A number in [0, 1) fixed by its inputs (FNV-1a over the text, then a SplitMix64 finish). */
  static double draw(String machine, int attempt, long seed) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : (machine + "|" + attempt + "|" + seed).getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    hash ^= hash >>> 30;
    hash *= 0xbf58476d1ce4e5b9L;
    hash ^= hash >>> 27;
    hash *= 0x94d049bb133111ebL;
    hash ^= hash >>> 31;
    return (hash >>> 11) / (double) (1L << 53);
  }
}
