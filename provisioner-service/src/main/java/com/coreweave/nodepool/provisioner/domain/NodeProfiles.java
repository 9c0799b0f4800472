package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The id of a pool's node configuration ({@code status.nodeProfile}): {@code np-} and 8 hex digits of a hash of what
 * a node boots with. {@code image} wins over {@code gpu} when both are set, as the reference says, so only the
 * fields that take effect change the profile.
 */
public final class NodeProfiles {

  private NodeProfiles() {
  }

  public static String of(NodePoolSpec spec) {
    String source;
    if (spec.image() != null) {
      var image = spec.image();
      source = "image|" + nullToEmpty(image.name()) + "|" + nullToEmpty(image.kernel()) + "|"
          + nullToEmpty(image.releaseTrain());
    } else {
      source = "gpu|" + (spec.gpu() == null ? "" : nullToEmpty(spec.gpu().version()));
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(source.getBytes(StandardCharsets.UTF_8));
      return "np-" + HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  private static String nullToEmpty(String value) {
    return value == null ? "" : value;
  }
}
