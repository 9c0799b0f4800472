package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** The NodePool resource ({@code compute.coreweave.com/v1alpha1}): metadata, desired spec, observed status. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"apiVersion", "kind", "metadata", "spec", "status"})
public record NodePool(String apiVersion, String kind, ObjectMeta metadata, NodePoolSpec spec, NodePoolStatus status) {

    public static final String API_VERSION = "compute.coreweave.com/v1alpha1";
    public static final String KIND = "NodePool";
    /** The classpath resource of the NodePool CustomResourceDefinition: names, scale, printer columns, schema. */
    public static final String DEFINITION = "/crds/nodepools.compute.coreweave.com.yaml";

    public static NodePool of(ObjectMeta metadata, NodePoolSpec spec, NodePoolStatus status) {
        return new NodePool(API_VERSION, KIND, metadata, spec, status);
    }

    public NodePool withMetadata(ObjectMeta newMetadata) {
        return new NodePool(apiVersion, kind, newMetadata, spec, status);
    }

    public NodePool withSpec(NodePoolSpec newSpec) {
        return new NodePool(apiVersion, kind, metadata, newSpec, status);
    }

    public NodePool withStatus(NodePoolStatus newStatus) {
        return new NodePool(apiVersion, kind, metadata, spec, newStatus);
    }

    public String name() {
        return metadata == null ? null : metadata.name();
    }
}
