package com.coreweave.nodepool.quota.rest;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * What one instance answers another during an interactive query: only its own store, never forwarded again. The
 * caller's token travels with the forwarded read: an org reads only its own ledgers, an operator reads all.
 */
@Path("/internal/quotas")
@Produces(MediaType.APPLICATION_JSON)
public class InternalQuotaReadsResource {

  @Inject
  QuotaReads reads;

  @Inject
  CurrentCaller caller;

  @GET
  @Operation(hidden = true)
  public List<QuotaLedger> all() {
    caller.admin();
    return reads.localAll();
  }

  @GET
  @Path("/{org}")
  @Operation(hidden = true)
  public List<QuotaLedger> ofOrg(@PathParam("org") String org) {
    Caller who = caller.get();
    if (!who.admin() && !org.equals(who.org())) {
      throw ApiException.forbidden("an org reads only its own quotas");
    }
    return reads.localOfOrg(org);
  }
}
