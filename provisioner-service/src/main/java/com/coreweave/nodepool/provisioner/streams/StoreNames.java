package com.coreweave.nodepool.provisioner.streams;

/** The names of the provisioner's state stores. */
public final class StoreNames {

  private StoreNames() {
  }

  /** {@code <org>/<pool>} → {@code PoolState}: the pool's spec, grants, nodes and released grants. */
  public static final String POOLS = "provisioner-pools";
  /**
   * {@code DueIndex} keys ({@code <deadline epoch millis, 19 digits>|<org>/<pool>}) → {@code <org>/<pool>}: when
   * each pool's next boot or drain deadline falls, sorted by time so the punctuator reads only what is due.
   */
  public static final String TIMERS = "provisioner-timers";
  /** release train → the newest {@code NodeReleasePublished} of it; every task keeps all of them. */
  public static final String RELEASES = "provisioner-node-releases";
}
