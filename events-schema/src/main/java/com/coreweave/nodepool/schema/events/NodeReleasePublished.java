package com.coreweave.nodepool.schema.events;

import java.time.Instant;
import java.util.List;

/**
 * An upstream release of the node image on a release train ({@code stable} or {@code latest}): a new ncore image, GPU
 * driver or Kubernetes version that pools following the train can adopt. Compacted {@code node-release-published},
 * keyed by the train and written to every partition, so that every provisioner task sees every release. Pools with
 * {@code nodeConfigurationUpdateStrategy.type: Always} stage it at once; the others show it as
 * {@code status.pendingNodeConfiguration}. Pools that pin {@code image.name} do not follow a train.
 */
public record NodeReleasePublished(String releaseTrain, String version, List<String> summary, Instant publishedAt) {

    public NodeReleasePublished {
        summary = summary == null ? List.of() : List.copyOf(summary);
    }
}
