package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.streams.StoreNames;
import com.coreweave.nodepool.kit.kafka.InteractiveQueries;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.PoolKey;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.SortedMap;
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
  Tenancy tenancy;

  @Inject
  InteractiveQueries queries;

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
  @Path("/pool-views")
  @Operation(hidden = true)
  public SortedMap<String, PoolView> views(@QueryParam("org") String org, @QueryParam("after") String after,
                                          @QueryParam("limit") Integer limit) {
    String readable = tenancy.readable(org);
    if (limit == null) {
      return reads.localViews(readable);
    }
    return queries.localPage(StoreNames.POOL_VIEWS, readable == null ? null : PoolKey.orgPrefix(readable), after,
        limit);
  }

  @GET
  @Path("/pool-events")
  @Operation(hidden = true)
  public SortedMap<String, PoolEvents> events(@QueryParam("org") String org) {
    return reads.localEvents(tenancy.readable(org));
  }

  private PoolKey own(String org, String name) {
    if (!tenancy.mayRead(org)) {
      throw ApiException.notFound("NodePool", name);
    }
    return new PoolKey(org, name);
  }
}
