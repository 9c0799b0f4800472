package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/** The boot image of a pool's nodes; {@code releaseTrain} is stable (default) or latest. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"kernel", "name", "releaseTrain"})
public record Image(String kernel, String name, String releaseTrain) {

    public static final String STABLE = "stable";
    public static final String LATEST = "latest";
    /** Every release train, as {@code node-release-published} is keyed. */
    public static final List<String> RELEASE_TRAINS = List.of(STABLE, LATEST);
}
