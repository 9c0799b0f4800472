package com.coreweave.nodepool.quota.rest;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** An org reads its own quotas: limits, usage, what is free, and why each of its pools is or is not growing. */
@Path("/quotas")
@Produces(MediaType.APPLICATION_JSON)
public class QuotaResource {

    @Inject
    CurrentCaller caller;

    @Inject
    QuotaReads reads;

    @GET
    @Operation(summary = "The caller's quotas per zone and instance type, with usage and each pool's decision")
    public QuotaList list() {
        String org = caller.org();
        return QuotaList.of(org, reads.ofOrg(org));
    }
}
