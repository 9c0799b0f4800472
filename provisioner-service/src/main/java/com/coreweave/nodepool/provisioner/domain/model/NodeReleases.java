package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.resource.Image;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The newest upstream release of each release train ({@code stable}, {@code latest}) as the provisioner knows it: what
 * a pool that follows a train boots. Until an operator publishes one, each train has the release this version of the
 * fleet shipped with.
 */
public record NodeReleases(Map<String, NodeReleasePublished> byTrain) {

    public static final List<String> TRAINS = Image.RELEASE_TRAINS;

    /** The releases the fleet starts with, before any is published on {@code node-release-published}. */
    public static final NodeReleases INITIAL = new NodeReleases(Map.of(
            Image.STABLE,
                    new NodeReleasePublished(
                            Image.STABLE,
                            "2026.10.2",
                            List.of("ncore image 2026.10.2", "Kubernetes v1.31.6"),
                            Instant.EPOCH),
            Image.LATEST,
                    new NodeReleasePublished(
                            Image.LATEST,
                            "2026.11.1",
                            List.of("ncore image 2026.11.1", "Kubernetes v1.32.2"),
                            Instant.EPOCH)));

    public NodeReleases {
        byTrain = new TreeMap<>(byTrain);
    }

    public NodeReleasePublished of(String train) {
        NodeReleasePublished release = byTrain.get(train);
        return release != null ? release : INITIAL.byTrain.get(train);
    }

    public NodeReleases with(NodeReleasePublished release) {
        Map<String, NodeReleasePublished> next = new TreeMap<>(byTrain);
        next.put(release.releaseTrain(), release);
        return new NodeReleases(next);
    }
}
