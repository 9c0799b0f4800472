package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import com.coreweave.nodepool.provisioner.domain.model.NodeConfig;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Builds a pool's node configuration from its spec and the release it follows. The id ({@code status.nodeProfile}) is
 * {@code np-} and 8 hex digits of a hash of what a node boots with: the spec's {@code image} (which wins over
 * {@code gpu}, as the reference says, so only the fields that take effect count) or {@code gpu}, and the release of the
 * pool's train. A pool that pins {@code image.name} follows no train, so no upstream release changes it.
 */
public final class NodeProfiles {

    private NodeProfiles() {}

    /** The release train the pool follows, or null when {@code image.name} pins its image. */
    public static String train(NodePoolSpec spec) {
        Image image = spec.image();
        if (image == null) {
            return Image.STABLE;
        }
        if (image.name() != null && !image.name().isBlank()) {
            return null;
        }
        return image.releaseTrain() == null ? Image.STABLE : image.releaseTrain();
    }

    /** What of the spec a node boots with; a change of it is a user-initiated configuration change. */
    public static String specSource(NodePoolSpec spec) {
        if (spec.image() != null) {
            var image = spec.image();
            return "image|" + nullToEmpty(image.name()) + "|" + nullToEmpty(image.kernel()) + "|"
                    + nullToEmpty(image.releaseTrain());
        }
        return "gpu|" + (spec.gpu() == null ? "" : nullToEmpty(spec.gpu().version()));
    }

    /** The release the pool follows now, or null when it pins its image. */
    public static NodeReleasePublished release(NodePoolSpec spec, NodeReleases releases) {
        String train = train(spec);
        return train == null ? null : releases.of(train);
    }

    public static String of(NodePoolSpec spec, NodeReleases releases) {
        NodeReleasePublished release = release(spec, releases);
        String source =
                specSource(spec) + (release == null ? "" : "|" + release.releaseTrain() + "=" + release.version());
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(source.getBytes(StandardCharsets.UTF_8));
            return "np-" + HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** The configuration the spec and the releases ask for, as a pool shows it in its status. */
    public static NodeConfig configure(NodePoolSpec spec, NodeReleases releases, Instant now) {
        List<String> summary = new ArrayList<>();
        NodeReleasePublished release = release(spec, releases);
        Image image = spec.image();
        if (release == null) {
            summary.add("image " + image.name() + " (pinned; follows no release train)");
        } else {
            summary.add("release train " + release.releaseTrain() + ": " + release.version());
            summary.addAll(release.summary());
        }
        if (image != null && image.kernel() != null && !image.kernel().isBlank()) {
            summary.add("kernel " + image.kernel());
        }
        if (image == null) {
            summary.add(
                    spec.gpu() == null || spec.gpu().version() == null
                            ? "GPU driver: the release's default"
                            : "GPU driver " + spec.gpu().version());
        }
        return new NodeConfig(of(spec, releases), now, summary);
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
