package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;

/**
 * Reads a {@code node-release-published} record: keyed by a known release train, a {@code NodeReleasePublished} of
 * that train with a version. Anything else is rejected with a code and a reason for the dead-letter headers.
 */
public final class ReleaseReader implements RecordReader<NodeReleasePublished> {

  public static final String INVALID_RELEASE = "InvalidRelease";

  @Override
  public NodeReleasePublished read(String key, byte[] value) {
    if (!NodeReleases.TRAINS.contains(key)) {
      throw new Rejection(INVALID_RELEASE, "the key must be a release train, one of " + NodeReleases.TRAINS
          + ", was \"" + key + "\"");
    }
    NodeReleasePublished release = RecordReader.json(NodeReleasePublished.class).read(key, value);
    if (!key.equals(release.releaseTrain())) {
      throw new Rejection(INVALID_RELEASE, "the release is of train \"" + release.releaseTrain()
          + "\" but its key is \"" + key + "\"");
    }
    if (release.version() == null || release.version().isBlank()) {
      throw new Rejection(INVALID_RELEASE, "version is required");
    }
    return release;
  }
}
