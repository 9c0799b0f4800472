package com.coreweave.nodepool.schema.resource;

/**
 * The pending demand an autoscaling pool is asked to serve ({@code status.pendingDemand}): the nodes its pending
 * workloads need and how many workloads those are. Not in the reference.
 */
public record PendingDemand(int nodes, int workloads) {}
