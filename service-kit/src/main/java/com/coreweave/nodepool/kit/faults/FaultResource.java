package com.coreweave.nodepool.kit.faults;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.time.Instant;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.logging.Logger;

/**
 * An operator arms and disarms faults at this service's fault points, so that a failure path runs as it would for a
 * real failure (docs/fault-injection.md). Not found unless fault injection is enabled; operators only; every arm and
 * disarm is a write, and so in the audit trail. Per instance and in memory: a restart disarms everything.
 */
@Path("/admin/faults")
@Produces(MediaType.APPLICATION_JSON)
public class FaultResource {

    private static final Logger LOG = Logger.getLogger(FaultResource.class);

    @Inject
    CurrentCaller caller;

    @Inject
    InjectedFaults faults;

    @Inject
    Clock clock;

    @GET
    @Operation(summary = "This service's fault points and the faults armed on this instance")
    public FaultList list() {
        open();
        return new FaultList(faults.points(), faults.armed(clock.instant()));
    }

    @PUT
    @Path("/{point}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(
            summary = "Arm a fault at a point for a zone, an org or a pool; body {\"zone\", \"org\", \"pool\", "
                    + "\"count\", \"expiresAfterSeconds\", \"message\"}")
    public ArmedFault arm(@PathParam("point") String point, String body) {
        Caller operator = open();
        FaultRequest request = RequestBody.value(body, FaultRequest.class, "a fault object");
        Instant now = clock.instant();
        ArmedFault fault;
        try {
            if (request.count() != null && request.count() < 1) {
                throw new IllegalArgumentException("count must be at least 1, or left out for no limit");
            }
            if (request.expiresAfterSeconds() != null && request.expiresAfterSeconds() < 1) {
                throw new IllegalArgumentException("expiresAfterSeconds must be at least 1, or left out for no end");
            }
            fault = faults.arm(new ArmedFault(
                    point,
                    new FaultScope(request.zone(), request.org(), request.pool()),
                    request.count(),
                    request.expiresAfterSeconds() == null ? null : now.plusSeconds(request.expiresAfterSeconds()),
                    request.message(),
                    operator.user(),
                    now));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        LOG.warnf(
                "fault %s armed by %s (count %s, expires %s)",
                fault.id(), operator.user(), fault.remaining(), fault.expires());
        return fault;
    }

    @DELETE
    @Path("/{point}")
    @Operation(summary = "Disarm the fault at a point and scope (query zone, org, pool as it was armed)")
    public Status disarm(
            @PathParam("point") String point,
            @QueryParam("zone") String zone,
            @QueryParam("org") String org,
            @QueryParam("pool") String pool) {
        Caller operator = open();
        FaultScope scope;
        try {
            scope = new FaultScope(zone, org, pool);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (!faults.disarm(point, scope)) {
            throw ApiException.notFound("fault", point + "@" + scope);
        }
        LOG.warnf("fault %s@%s disarmed by %s", point, scope, operator.user());
        return Statuses.success("fault " + point + "@" + scope + " disarmed");
    }

    @DELETE
    @Operation(summary = "Disarm every fault of this instance")
    public Status disarmAll() {
        Caller operator = open();
        int count = faults.disarmAll();
        LOG.warnf("%d fault(s) disarmed by %s", count, operator.user());
        return Statuses.success(count + " fault(s) disarmed");
    }

    /** The operator calling, once fault injection is known to be on: off, the endpoint is not there. */
    private Caller open() {
        if (!faults.enabled()) {
            throw new ApiException(
                    Statuses.failure(404, "NotFound", "fault injection is not enabled on this service", null));
        }
        return caller.admin();
    }
}
