package com.coreweave.nodepool.capacity.rest;

import com.coreweave.nodepool.capacity.domain.Availability;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.LedgerSummary;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * What one instance answers another during an interactive query: only its own store, never forwarded again.
 * Ledgers name every org's pools, so they need the operator's token; availability counts are for anyone.
 */
@Path("/internal")
@Produces(MediaType.APPLICATION_JSON)
public class InternalReadsResource {

  @Inject
  LedgerReads reads;

  @Inject
  CurrentCaller caller;

  @Inject
  Catalogue catalogue;

  @GET
  @Path("/ledgers")
  @Operation(hidden = true)
  public List<LedgerSummary> ledgers() {
    caller.admin();
    return reads.localLedgers().stream().map(l -> LedgerSummary.of(l, false)).toList();
  }

  @GET
  @Path("/ledgers/{zone}/{instanceType}")
  @Operation(hidden = true)
  public LedgerSummary ledger(@PathParam("zone") String zone, @PathParam("instanceType") String instanceType) {
    caller.admin();
    return reads.localLedger(new ZoneTypeKey(zone, instanceType)).map(l -> LedgerSummary.of(l, true))
        .orElseThrow(() -> ApiException.notFound("Ledger", zone + "/" + instanceType));
  }

  @GET
  @Path("/ledgers/{zone}/{instanceType}/fleet-changes/{requestId}")
  @Operation(hidden = true)
  public LedgerReads.Applied fleetChange(@PathParam("zone") String zone,
                                         @PathParam("instanceType") String instanceType,
                                         @PathParam("requestId") String requestId) {
    caller.admin();
    return reads.localApplied(new ZoneTypeKey(zone, instanceType), requestId)
        .orElseThrow(() -> ApiException.notFound("FleetChange", requestId));
  }

  @GET
  @Path("/availability")
  @Operation(hidden = true)
  public List<Availability> availability(@QueryParam("instanceType") String instanceType,
                                         @QueryParam("nodes") int nodes) {
    caller.get();
    InstanceType type = catalogue.find(instanceType)
        .orElseThrow(() -> ApiException.notFound("InstanceType", instanceType));
    return reads.localAvailability(type, nodes);
  }
}
