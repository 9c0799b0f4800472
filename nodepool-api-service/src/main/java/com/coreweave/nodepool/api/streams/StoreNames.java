package com.coreweave.nodepool.api.streams;

/** The names of the api-service's state stores (also used by interactive queries). */
public final class StoreNames {

    private StoreNames() {}

    /** {@code <org>/<pool>} → {@code PoolView}: the materialized pool, with its Kubernetes Events (its head). */
    public static final String POOL_VIEWS = "pool-views";
    /** {@code <org>/<pool>/<part id>} → {@code ViewPart}: each node and spot preemption of a pool's view. */
    public static final String POOL_VIEW_PARTS = "pool-view-parts";
    /**
     * {@code <org>/<pool>/<uid>} → {@code DeletedPoolEvents}: a deleted pool's Kubernetes Events, kept for
     * {@code nodepool.api.event-retention} after it is gone.
     */
    public static final String DELETED_POOL_EVENTS = "deleted-pool-events";
    /** {@code <org>/<pool>|<request id>} → {@code RequestDecided}: requests already answered. */
    public static final String REQUEST_IDS = "request-ids";
    /** {@code <org>/<pool>} → "": pools whose spec is not (yet) valid, validated again periodically. */
    public static final String UNVALIDATED = "unvalidated-pools";
    /** Global: instance type name → {@code InstanceType}, the capacity-service's catalogue. */
    public static final String INSTANCE_TYPES = "instance-types";
    /** Global: {@code <org>/<workload>} → {@code WorkloadStatus}, the demand planner's verdicts (REST's workloads). */
    public static final String WORKLOAD_STATUSES = "workload-statuses";
    /** {@code <org>/<pool>} → its conditions as last published, compactly (the {@code nodepool_pools} gauges). */
    public static final String POOL_CONDITIONS = "pool-conditions";
    /**
     * {@code <org>} → {@code OrgPoolCount}, its pools and their bytes in this task's partition (the pool count and
     * storage quotas). Named anew when it gained the bytes, so a store of the old counts is left behind and its pools
     * counted again.
     */
    public static final String ORG_POOLS = "org-pool-usage";
    /** Global: {@code <org>/<partition>} → {@code OrgPoolCount}, every partition's count of each org's pools. */
    public static final String ORG_POOL_COUNTS = "org-pool-counts";
}
