package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The {@code metadata.resourceVersion} of a pool's next write: the time of the write in epoch microseconds, or one
 * more than the pool's current version if that is not lower. Unique and increasing per pool whichever partition or
 * topic the request came through (offsets of two topics would collide), roughly ordered in time across pools, and
 * opaque to clients as Kubernetes says.
 */
public final class ResourceVersions {

  private ResourceVersions() {
  }

  public static String next(NodePoolAccepted current, Instant now) {
    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, now);
    if (current == null) {
      return Long.toString(micros);
    }
    return Long.toString(Math.max(micros, parse(current.nodePool().metadata().resourceVersion()) + 1));
  }

  private static long parse(String version) {
    try {
      return version == null ? 0 : Long.parseLong(version);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
