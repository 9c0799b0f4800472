package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.kube.OpenApi;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The Kubernetes OpenAPI endpoints kubectl reads: {@code /openapi/v3} (an index of group versions) and the NodePool
 * group version's document, and {@code /openapi/v2}, in JSON. The Quarkus OpenAPI of the whole REST API stays at
 * {@code /q/openapi}.
 */
@Path("/openapi")
@Produces(MediaType.APPLICATION_JSON)
public class OpenApiResource {

    @GET
    @Path("/v3")
    public ObjectNode index() {
        return OpenApi.v3Index();
    }

    /** A document asked for by its hash never changes, so clients may cache it for good. */
    @GET
    @Path("/v3/apis/compute.coreweave.com/v1alpha1")
    public Response nodePools(@QueryParam("hash") String hash) {
        Response.ResponseBuilder response = Response.ok(OpenApi.v3());
        if (hash != null) {
            response.header(HttpHeaders.CACHE_CONTROL, "public, immutable");
        }
        return response.build();
    }

    @GET
    @Path("/v2")
    public ObjectNode v2(@HeaderParam(HttpHeaders.ACCEPT) String accept) {
        if (accept != null && !accept.contains("json") && !accept.contains("*/*")) {
            throw new ApiException(Statuses.failure(
                    406, "NotAcceptable", "only application/json is served here, not " + accept, null));
        }
        return OpenApi.v2();
    }
}
