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

    /**
     * {@code <org>/<workload>} → {@code PlannedWorkload}: each pending workload of an org the demand planner holds,
     * with when it arrived and the verdict last published; the planner scans {@code <org>/}.
     */
    public static final String DEMAND_WORKLOADS = "provisioner-demand-workloads";
    /** {@code <org>} → how many workloads {@link #DEMAND_WORKLOADS} holds for it (the cap's count, without a scan). */
    public static final String DEMAND_ORG_WORKLOADS = "provisioner-demand-org-workloads";
    /**
     * {@code <org>/<pool>} → {@code PlannedPool}: each autoscaling pool's offer to the planner and the demand last
     * given it.
     */
    public static final String DEMAND_POOLS = "provisioner-demand-pools";
    /** {@code <zone>/<instanceType>} → {@code FleetAvailability}: a global store of {@code fleet-availability}. */
    public static final String FLEET_AVAILABILITY = "provisioner-fleet-availability";
    /** {@code <instanceType>} → {@code InstanceType}: a global store of the catalogue. */
    public static final String INSTANCE_TYPES = "provisioner-instance-types";
}
