package com.coreweave.nodepool.api.domain;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code metadata.continue} of a list page: the list's resourceVersion (the first page's, so the pages form one
 * list a watch can follow) and the key the next page starts after. Opaque to clients, as Kubernetes says.
 */
public record ContinueToken(String version, String after) {

  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  public String encode() {
    return ENCODER.encodeToString((version + "\n" + after).getBytes(StandardCharsets.UTF_8));
  }

  /** The token {@code text} encodes; {@link IllegalArgumentException} when it is not one of ours. */
  public static ContinueToken decode(String text) {
    String decoded;
    try {
      decoded = new String(DECODER.decode(text), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the continue token is not valid base64");
    }
    int newline = decoded.indexOf('\n');
    if (newline <= 0 || newline == decoded.length() - 1) {
      throw new IllegalArgumentException("the continue token does not name a list position");
    }
    return new ContinueToken(decoded.substring(0, newline), decoded.substring(newline + 1));
  }
}
