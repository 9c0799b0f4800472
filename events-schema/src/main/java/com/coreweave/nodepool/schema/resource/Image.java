package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** The boot image of a pool's nodes; {@code releaseTrain} is stable (default) or latest. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"kernel", "name", "releaseTrain"})
public record Image(String kernel, String name, String releaseTrain) {

  public static final String STABLE = "stable";
  public static final String LATEST = "latest";
}
