package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.ViewPart;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
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

  @GET
  @Path("/pool-views/{org}/{name}")
  @Operation(hidden = true)
  public PoolView view(@PathParam("org") String org, @PathParam("name") String name) {
    return reads.localView(own(org, name)).orElseThrow(() -> ApiException.notFound("NodePool", name));
  }

  @GET
  @Path("/pool-published/{org}/{name}")
  @Operation(hidden = true)
  public NodePool published(@PathParam("org") String org, @PathParam("name") String name) {
    return reads.localPublished(own(org, name)).orElseThrow(() -> ApiException.notFound("NodePool", name));
  }

  @GET
  @Path("/pool-events/{org}/{name}")
  @Operation(hidden = true)
  public PoolEvents events(@PathParam("org") String org, @PathParam("name") String name) {
    return reads.localEvents(own(org, name)).orElseThrow(() -> ApiException.notFound("NodePool", name));
  }

  /** The nodes and preemptions stored beside a pool's view, keyed as stored, for another instance's read. */
  @GET
  @Path("/pool-parts/{org}/{name}")
  @Operation(hidden = true)
  public SortedMap<String, ViewPart> parts(@PathParam("org") String org, @PathParam("name") String name) {
    return reads.localParts(own(org, name));
  }

  /** This instance's share of the nodes of an org's pools, for another instance's list of nodes. */
  @GET
  @Path("/pool-nodes")
  @Operation(hidden = true)
  public SortedMap<String, Node> nodes(@QueryParam("org") String org) {
    return reads.localNodes(tenancy.readable(org));
  }

  /** A page of this instance's pools' published resources, for another instance's LIST. */
  @GET
  @Path("/pool-published")
  @Operation(hidden = true)
  public SortedMap<String, NodePool> published(@QueryParam("org") String org, @QueryParam("after") String after,
                                               @QueryParam("limit") int limit) {
    return reads.localPublishedPage(tenancy.readable(org), after, limit);
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
