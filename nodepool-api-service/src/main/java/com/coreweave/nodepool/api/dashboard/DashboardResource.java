package com.coreweave.nodepool.api.dashboard;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * The dashboard's own reads, same-origin so the browser needs no CORS: who the token belongs to, and the quotas and the
 * fleet, which live in the quota- and capacity-services. Every call needs a bearer token like the rest of the API.
 */
@Path("/dashboard/api")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class DashboardResource {

    /** Whom a token stands for: the org it acts for, and whether it is an operator's (fleet, every org's quotas). */
    public record Identity(String org, boolean admin) {}

    @Inject
    CurrentCaller caller;

    @Inject
    DashboardSettings settings;

    @Inject
    Upstream upstream;

    @Inject
    FleetPools pools;

    @GET
    @Path("/whoami")
    public Identity whoami() {
        Caller who = caller.get();
        return new Identity(who.org(), who.admin());
    }

    /** Every org's pools, for operators (an org reads its own through the NodePool API and its watch). */
    @GET
    @Path("/nodepools")
    public List<FleetPools.OrgPool> allPools() {
        caller.admin();
        return pools.all();
    }

    /** What one instance answers another for {@link #allPools}: only its own share, never forwarded again. */
    @GET
    @Path("/nodepools/share")
    @Operation(hidden = true)
    public List<FleetPools.OrgPool> poolShare() {
        caller.admin();
        return pools.share();
    }

    /** Every org's quotas for an operator, the caller's own otherwise; limits, usage and each pool's decision. */
    @GET
    @Path("/quotas")
    public Response quotas() {
        String path = caller.get().admin() ? "/admin/quotas" : "/quotas";
        return upstream.get("quota-service", settings.quotaUrl(), path);
    }

    /** The fleet per zone and instance type (operators only): free, allocated, maintenance, the queues, spot. */
    @GET
    @Path("/fleet")
    public Response fleet() {
        caller.admin();
        return upstream.get("capacity-service", settings.capacityUrl(), "/admin/fleet");
    }
}
