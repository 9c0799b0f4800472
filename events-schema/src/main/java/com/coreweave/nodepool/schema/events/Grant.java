package com.coreweave.nodepool.schema.events;

/**
 * One machine allocated to one pool. {@code grantId} is unique per allocation (a machine granted again later gets a new
 * id), so a release names exactly the allocation it ends and a late duplicate cannot free a re-granted machine.
 */
public record Grant(String machine, long grantId) {}
