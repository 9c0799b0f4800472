package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.kube.JsonPatch;
import com.coreweave.nodepool.api.kube.MergePatch;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.util.function.UnaryOperator;

/**
 * The {@code scale} subresource of a NodePool ({@code kubectl scale nodepool X --replicas=N}): an
 * {@code autoscaling/v1} Scale whose {@code spec.replicas} is the pool's {@code spec.targetNodes} and whose
 * {@code status.replicas} is its {@code status.currentNodes}, as the CRD's scale paths say. A change of replicas is a
 * write of {@code spec.targetNodes}, by the caller's field manager.
 */
@Path("/apis/compute.coreweave.com/v1alpha1/nodepools/{name}/scale")
@Produces(MediaType.APPLICATION_JSON)
public class NodePoolScaleResource {

    @Inject
    NodePoolResource pools;

    @Inject
    PoolWrites writes;

    @Inject
    ServerSideApply apply;

    @Inject
    Tenancy tenancy;

    @GET
    public Scale get(@PathParam("name") String name, @BeanParam ListOptions options) {
        return scale((NodePool) pools.get(name, options.plain()));
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    public Scale replace(@PathParam("name") String name, String body, @BeanParam WriteOptions options) {
        return rescale(name, options, current -> RequestBody.tree(body, "a Scale"));
    }

    @PATCH
    @Consumes({NodePoolResource.MERGE_PATCH, MediaType.APPLICATION_JSON, NodePoolResource.JSON_PATCH})
    public Scale patch(
            @PathParam("name") String name,
            String body,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) MediaType type,
            @BeanParam WriteOptions options) {
        JsonNode patch = RequestBody.tree(body, "a Scale patch");
        boolean json = type != null && NodePoolResource.JSON_PATCH.equals(type.getType() + "/" + type.getSubtype());
        return rescale(
                name, options, current -> json ? JsonPatch.apply(current, patch) : MergePatch.apply(current, patch));
    }

    private Scale rescale(String name, WriteOptions options, UnaryOperator<JsonNode> change) {
        NodePool stored = writes.rewrite(new PoolKey(tenancy.writer(), name), options, false, current -> {
            JsonNode wanted;
            try {
                wanted = change.apply(Json.mapper().valueToTree(scale(current)));
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("the patch cannot be applied: " + e.getMessage());
            }
            JsonNode replicas = wanted.path("spec").path("replicas");
            if (!replicas.isIntegralNumber()
                    || !replicas.canConvertToInt()
                    || replicas.intValue() < 0
                    || replicas.intValue() > Limits.MAX_TARGET_NODES) {
                throw FieldErrors.one(
                                Statuses.INVALID,
                                "Invalid value: " + FieldErrors.shown(replicas.toString())
                                        + ": must be an integer from 0 to " + Limits.MAX_TARGET_NODES,
                                "spec.replicas")
                        .refusal("Scale", name);
            }
            String version = wanted.path("metadata").path("resourceVersion").asText(null);
            if (version != null && !version.equals(current.metadata().resourceVersion())) {
                throw ApiException.conflict(
                        NodePool.KIND,
                        name,
                        "the object has been modified; please apply your changes to the latest version and try again");
            }
            return apply.recordUpdate(
                    current, current.withSpec(current.spec().withTargetNodes(replicas.intValue())), options.manager());
        });
        return scale(stored);
    }

    static Scale scale(NodePool pool) {
        return new ScaleBuilder()
                .withNewMetadata()
                .withName(pool.name())
                .withUid(pool.metadata().uid())
                .withResourceVersion(pool.metadata().resourceVersion())
                .withCreationTimestamp(
                        pool.metadata().creationTimestamp() == null
                                ? null
                                : pool.metadata().creationTimestamp().toString())
                .endMetadata()
                .withNewSpec()
                .withReplicas(pool.spec().target())
                .endSpec()
                .withNewStatus()
                .withReplicas(
                        pool.status() == null || pool.status().currentNodes() == null
                                ? 0
                                : pool.status().currentNodes())
                .withSelector("")
                .endStatus()
                .build();
    }
}
