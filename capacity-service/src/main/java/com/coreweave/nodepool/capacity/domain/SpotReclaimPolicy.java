package com.coreweave.nodepool.capacity.domain;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Which spot nodes go first when capacity is taken back from spot pools: the most recently granted first (the
 * least work lost, and the oldest spot nodes keep running), ties by machine name. A machine already asked back is
 * never chosen again.
 */
public final class SpotReclaimPolicy {

  private static final Comparator<Machine> MOST_RECENT_FIRST = Comparator
      .comparingLong((Machine m) -> m.allocation().grantId()).reversed()
      .thenComparing(Machine::name);

  private SpotReclaimPolicy() {
  }

  /** A spot machine nobody has asked back yet. */
  public static boolean reclaimable(Machine machine) {
    return machine.status() == Machine.Status.ALLOCATED && machine.allocation().spot()
        && machine.allocation().reclaim() == null;
  }

  /** Up to {@code count} machines to take back, in the order the policy gives them up. */
  public static List<Machine> choose(Collection<Machine> machines, int count) {
    return machines.stream()
        .filter(SpotReclaimPolicy::reclaimable)
        .sorted(MOST_RECENT_FIRST)
        .limit(Math.max(0, count))
        .toList();
  }
}
