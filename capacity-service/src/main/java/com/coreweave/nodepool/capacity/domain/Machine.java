package com.coreweave.nodepool.capacity.domain;

import java.time.Instant;
import java.util.Locale;

/**
 * One machine of a zone × instance type. Its name is deterministic and DNS-safe (it becomes the node name); while
 * it is {@code ALLOCATED}, {@code allocation} says to which pool incarnation and under which grant.
 */
public record Machine(String name, int index, Status status, Allocation allocation) {

  public enum Status { FREE, ALLOCATED, MAINTENANCE, RETIRED }

  /** Why a spot machine is being taken back: for reserved demand of the same ledger, or for an operator. */
  public enum Reclaim { RESERVED_DEMAND, OPERATOR }

  /**
   * The pool holding the machine: {@code grantId} is unique per allocation, so a release names exactly the grant it
   * ends. {@code reclaim} is set once a spot reclaim asked for the machine (never asked twice).
   */
  public record Allocation(String pool, String poolUid, boolean spot, long grantId, Instant grantedAt,
                           Reclaim reclaim) {

    Allocation reclaimed(Reclaim why) {
      return new Allocation(pool, poolUid, spot, grantId, grantedAt, why);
    }

    Allocation asSpot(boolean isSpot) {
      return new Allocation(pool, poolUid, isSpot, grantId, grantedAt, reclaim);
    }
  }

  /** {@code us-east-04a-gd-8xa100-i128-0007}: lower-case zone, type and a 4-digit (or longer) index. */
  public static String nameOf(String zone, String instanceType, int index) {
    return (zone + "-" + instanceType).toLowerCase(Locale.ROOT) + "-" + String.format(Locale.ROOT, "%04d", index);
  }

  public static Machine fresh(String zone, String instanceType, int index) {
    return new Machine(nameOf(zone, instanceType, index), index, Status.FREE, null);
  }

  public boolean allocatedTo(String pool, String poolUid) {
    return status == Status.ALLOCATED && allocation.pool().equals(pool) && allocation.poolUid().equals(poolUid);
  }

  Machine withStatus(Status next) {
    return new Machine(name, index, next, null);
  }

  Machine allocate(Allocation to) {
    return new Machine(name, index, Status.ALLOCATED, to);
  }

  Machine reclaimed(Reclaim why) {
    return new Machine(name, index, status, allocation.reclaimed(why));
  }
}
