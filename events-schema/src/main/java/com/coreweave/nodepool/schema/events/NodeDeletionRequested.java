package com.coreweave.nodepool.schema.events;

import java.time.Instant;

/**
 * A user's request to delete one node of a pool (inbound {@code node-deletion-requested}, keyed {@code <org>/<pool>};
 * the api-service's {@code DELETE .../nodepools/{pool}/nodes/{node}} writes it). The provisioner drains and removes the
 * node and the pool gets a replacement, so it stays at its target. {@code uid} ties the request to one incarnation of
 * the pool; a request for a node already leaving changes nothing.
 */
public record NodeDeletionRequested(String id, String org, String pool, String uid, String node, Instant requestedAt) {}
