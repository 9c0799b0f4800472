package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.kube.Discovery;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupList;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.APIVersions;
import io.fabric8.kubernetes.api.model.version.Info;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Kubernetes API discovery, as kubectl reads it first: the server's version, the core and named groups, and the
 * resources of each group version. Plain (unaggregated) discovery: kubectl asks for the aggregated form first and falls
 * back when the answer is a plain {@code application/json} document.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class DiscoveryResource {

    @ConfigProperty(name = "quarkus.application.version", defaultValue = "dev")
    String buildVersion;

    @GET
    @Path("/version")
    public Info version() {
        return Discovery.version(buildVersion);
    }

    @GET
    @Path("/api")
    public APIVersions api(@Context UriInfo uri) {
        return Discovery.core(
                uri.getBaseUri().getHost() + ":" + uri.getBaseUri().getPort());
    }

    @GET
    @Path("/api/v1")
    public APIResourceList coreV1() {
        return Discovery.coreV1();
    }

    @GET
    @Path("/apis")
    public APIGroupList apis() {
        return Discovery.groups();
    }

    @GET
    @Path("/apis/compute.coreweave.com")
    public APIGroup group() {
        return Discovery.group();
    }

    @GET
    @Path("/apis/compute.coreweave.com/v1alpha1")
    public APIResourceList nodePools() {
        return Discovery.nodePools();
    }
}
