package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.List;

/** A configuration that was once the pool's active {@code nodeProfile}, with how many nodes run it now. */
@JsonPropertyOrder({"activeNodes", "createdAt", "nodeProfile", "disabled", "summary"})
public record NodeConfigurationRevision(
        int activeNodes, Instant createdAt, String nodeProfile, boolean disabled, List<String> summary) {}
