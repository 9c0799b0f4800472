package com.coreweave.nodepool.provisioner.domain.model;

import java.time.Instant;
import java.util.List;

/**
 * One node configuration of a pool: its id ({@code np-} and 8 hex digits, see {@code NodeProfiles}), when the
 * provisioner built it, and what it boots (ncore image and release, GPU driver, kernel) in a few lines.
 */
public record NodeConfig(String nodeProfile, Instant createdAt, List<String> summary) {

    public NodeConfig {
        summary = summary == null ? List.of() : List.copyOf(summary);
    }
}
