package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;

/** GPU driver configuration; only the major driver version is given. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Gpu(String version) {}
