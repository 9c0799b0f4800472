package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.List;

/** A node configuration staged for adoption but not yet the pool's active {@code nodeProfile}. */
@JsonPropertyOrder({"createdAt", "nodeProfile", "summary"})
public record PendingNodeConfiguration(Instant createdAt, String nodeProfile, List<String> summary) {}
