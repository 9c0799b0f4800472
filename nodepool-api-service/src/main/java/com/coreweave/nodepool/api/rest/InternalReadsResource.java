package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.PoolKey;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * What one instance answers another during an interactive query: only its own store, never forwarded again.
 * The caller's token travels with the forwarded read, so tenancy holds here too.
 */
@Path("/internal")
@Produces(MediaType.APPLICATION_JSON)
public class InternalReadsResource {

  @Inject
  PoolReads reads;

  @Inject
  CurrentCaller caller;

  @GET
  @Path("/pool-views/{org}/{name}")
  @Operation(hidden = true)
  public PoolView view(@PathParam("org") String org, @PathParam("name") String name) {
    return reads.localView(own(org, name)).orElseThrow(() -> ApiException.notFound("NodePool", name));
  }

  @GET
  @Path("/pool-events/{org}/{name}")
  @Operation(hidden = true)
  public PoolEvents events(@PathParam("org") String org, @PathParam("name") String name) {
    return reads.localEvents(own(org, name)).orElseThrow(() -> ApiException.notFound("NodePool", name));
  }

  @GET
  @Path("/pool-views/{org}")
  @Operation(hidden = true)
  public List<PoolView> views(@PathParam("org") String org) {
    if (!org.equals(caller.org())) {
      throw ApiException.notFound("NodePool", org);
    }
    return reads.localViews(org);
  }

  private PoolKey own(String org, String name) {
    if (!org.equals(caller.org())) {
      throw ApiException.notFound("NodePool", name);
    }
    return new PoolKey(org, name);
  }
}
