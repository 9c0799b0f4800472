package com.coreweave.nodepool.provisioner.streams;

/** The names of the provisioner's state stores. */
public final class StoreNames {

    private StoreNames() {}

    /**
     * {@code <org>/<pool>} → {@code PoolState} without its nodes, grants and released grant ids: the head of the pool
     * as {@code PoolShape} stores it.
     */
    public static final String POOLS = "provisioner-pools";
    /**
     * {@code <org>/<pool>/<member id>} → {@code PoolMember}: each node ({@code n/<name>}), grant ({@code g/<id>}) and
     * released grant id ({@code r/<id>}) of a pool. Held by the task of the pool's partition like its head; an
     * interactive query would find the partition by the pool's key, then scan {@code <org>/<pool>/}.
     */
    public static final String POOL_MEMBERS = "provisioner-pool-members";
    /**
     * {@code DueIndex} keys ({@code <deadline epoch millis, 19 digits>|<org>/<pool>}) → {@code <org>/<pool>}: when each
     * pool's next boot or drain deadline falls, sorted by time so the punctuator reads only what is due.
     */
    public static final String TIMERS = "provisioner-timers";
    /** release train → the newest {@code NodeReleasePublished} of it; every task keeps all of them. */
    public static final String RELEASES = "provisioner-node-releases";
}
