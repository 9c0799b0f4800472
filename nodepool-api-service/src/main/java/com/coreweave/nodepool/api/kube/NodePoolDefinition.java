package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.NodePool;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionNames;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceSubresourceScale;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The NodePool CustomResourceDefinition of events-schema, read once: the one source of the resource's names and scope
 * (discovery), its schema (validation and OpenAPI), its printer columns (tables) and its scale subresource.
 */
public final class NodePoolDefinition {

    public static final String GROUP = "compute.coreweave.com";
    public static final String VERSION = "v1alpha1";

    private static final CustomResourceDefinition CRD = load();

    private NodePoolDefinition() {}

    public static CustomResourceDefinitionNames names() {
        return CRD.getSpec().getNames();
    }

    public static JSONSchemaProps schema() {
        return version().getSchema().getOpenAPIV3Schema();
    }

    public static List<CustomResourceColumnDefinition> columns() {
        return version().getAdditionalPrinterColumns();
    }

    public static CustomResourceSubresourceScale scale() {
        return version().getSubresources().getScale();
    }

    private static CustomResourceDefinitionVersion version() {
        return CRD.getSpec().getVersions().get(0);
    }

    private static CustomResourceDefinition load() {
        try (InputStream in = NodePool.class.getResourceAsStream(NodePool.DEFINITION)) {
            if (in == null) {
                throw new IllegalStateException(NodePool.DEFINITION + " is not on the classpath");
            }
            return Json.yaml().readValue(in, CustomResourceDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + NodePool.DEFINITION, e);
        }
    }
}
