package com.coreweave.nodepool.capacity.rest;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.InstanceType;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** The instance-type catalogue, for anyone with a token: what each type is and the zones it is offered in. */
@Path("/instance-types")
@Produces(MediaType.APPLICATION_JSON)
public class InstanceTypeResource {

    @Inject
    Catalogue catalogue;

    @Inject
    CurrentCaller caller;

    @GET
    public List<InstanceType> list() {
        caller.get();
        return catalogue.all();
    }

    @GET
    @Path("/{name}")
    public InstanceType get(@PathParam("name") String name) {
        caller.get();
        return catalogue.find(name).orElseThrow(() -> ApiException.notFound("InstanceType", name));
    }
}
