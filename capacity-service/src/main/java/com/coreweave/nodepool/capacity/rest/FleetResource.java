package com.coreweave.nodepool.capacity.rest;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.FleetOutcome;
import com.coreweave.nodepool.capacity.domain.Ledger;
import com.coreweave.nodepool.capacity.domain.LedgerSummary;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.FleetChangeRequested.Operation;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.Statuses;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * The operators' fleet API (admin token): set the size of a zone × instance type, add machines, retire a free one, take
 * machines to maintenance and back, and take nodes back from spot pools. Changes go through
 * {@code fleet-change-requested}; the answer is the ledger's outcome (200), or 202 when it is not applied yet.
 */
@Path("/admin/fleet")
@Produces(MediaType.APPLICATION_JSON)
public class FleetResource {

    /** {@code PUT /admin/fleet/{zone}/{type}}: the desired number of machines in service. */
    public record SetSize(Integer machines) {}

    /** {@code POST .../machines}: how many new machines to add. */
    public record Add(Integer add) {}

    /** {@code POST .../maintenance} and {@code .../return}: the machines to take out of or put back in service. */
    public record Machines(List<String> machines) {}

    /** {@code POST .../reclaim-spot}: how many spot nodes to take back. */
    public record Nodes(Integer nodes) {}

    /** The answer to a change: what the ledger did ({@code Applied}) or that it is on its way ({@code Accepted}). */
    public record ChangeAnswer(
            String requestId,
            String zone,
            String instanceType,
            Operation operation,
            String status,
            String message,
            int added,
            int retired,
            int notRetired,
            List<String> machines,
            LedgerSummary ledger) {}

    @Inject
    CurrentCaller caller;

    @Inject
    Catalogue catalogue;

    @Inject
    LedgerReads reads;

    @Inject
    FleetWrites writes;

    @Inject
    Clock clock;

    @GET
    public List<LedgerSummary> list() {
        caller.admin();
        return reads.ledgers().stream()
                .sorted(Comparator.comparing(LedgerSummary::zone).thenComparing(LedgerSummary::instanceType))
                .toList();
    }

    @GET
    @Path("/{zone}/{instanceType}")
    public LedgerSummary get(@PathParam("zone") String zone, @PathParam("instanceType") String instanceType) {
        caller.admin();
        ZoneTypeKey key = offered(zone, instanceType);
        return reads.ledger(key).orElseGet(() -> LedgerSummary.of(Ledger.empty(key), true));
    }

    @PUT
    @Path("/{zone}/{instanceType}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response setSize(
            @PathParam("zone") String zone, @PathParam("instanceType") String instanceType, String body) {
        ZoneTypeKey key = fleet(zone, instanceType);
        return submit(key, Operation.SET_SIZE, count(body, SetSize.class, SetSize::machines, "machines", 0), null);
    }

    @POST
    @Path("/{zone}/{instanceType}/machines")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response add(@PathParam("zone") String zone, @PathParam("instanceType") String instanceType, String body) {
        ZoneTypeKey key = fleet(zone, instanceType);
        return submit(key, Operation.ADD, count(body, Add.class, Add::add, "add", 1), null);
    }

    @DELETE
    @Path("/{zone}/{instanceType}/machines/{machine}")
    public Response remove(
            @PathParam("zone") String zone,
            @PathParam("instanceType") String instanceType,
            @PathParam("machine") String machine) {
        ZoneTypeKey key = fleet(zone, instanceType);
        return submit(key, Operation.REMOVE, null, List.of(machine));
    }

    /** {@code .../maintenance} takes the named machines out of service, {@code .../return} puts them back. */
    @POST
    @Path("/{zone}/{instanceType}/{change: maintenance|return}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response service(
            @PathParam("zone") String zone,
            @PathParam("instanceType") String instanceType,
            @PathParam("change") String change,
            String body) {
        ZoneTypeKey key = fleet(zone, instanceType);
        Operation operation = "return".equals(change) ? Operation.RETURN : Operation.MAINTENANCE;
        return submit(key, operation, null, machineNames(body));
    }

    @POST
    @Path("/{zone}/{instanceType}/reclaim-spot")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response reclaimSpot(
            @PathParam("zone") String zone, @PathParam("instanceType") String instanceType, String body) {
        ZoneTypeKey key = fleet(zone, instanceType);
        return submit(key, Operation.RECLAIM_SPOT, count(body, Nodes.class, Nodes::nodes, "nodes", 1), null);
    }

    private Response submit(ZoneTypeKey key, Operation operation, Integer count, List<String> machines) {
        Instant now = clock.instant();
        FleetChangeRequested change = new FleetChangeRequested(
                UUID.randomUUID().toString(), key.zone(), key.instanceType(), operation, count, machines, now);
        var applied = writes.submit(change);
        if (applied.isEmpty()) {
            return Response.accepted(new ChangeAnswer(
                            change.requestId(),
                            key.zone(),
                            key.instanceType(),
                            operation,
                            "Accepted",
                            "the change is recorded and the ledger applies it shortly",
                            0,
                            0,
                            0,
                            List.of(),
                            null))
                    .build();
        }
        FleetOutcome outcome = applied.get().outcome();
        if (!outcome.applied()) {
            int code = switch (outcome.code()) {
                case FleetOutcome.NOT_FOUND -> 404;
                case FleetOutcome.CONFLICT -> 409;
                default -> 422;
            };
            throw new ApiException(Statuses.failure(code, outcome.code(), outcome.message(), null));
        }
        return Response.ok(new ChangeAnswer(
                        change.requestId(),
                        key.zone(),
                        key.instanceType(),
                        operation,
                        "Applied",
                        outcome.message(),
                        outcome.added(),
                        outcome.retired(),
                        outcome.notRetired(),
                        outcome.machines(),
                        applied.get().ledger()))
                .build();
    }

    /** The ledger key of a fleet an admin changes: only an admin may (403), of a type offered in the zone (422). */
    private ZoneTypeKey fleet(String zone, String instanceType) {
        caller.admin();
        return offered(zone, instanceType);
    }

    /** The ledger key of a type in a zone it is offered in; anything else is an invalid fleet (422). */
    private ZoneTypeKey offered(String zone, String instanceType) {
        catalogue.refusal(zone, instanceType).ifPresent(why -> {
            throw FieldErrors.one(Statuses.NOT_SUPPORTED, why, "instanceType")
                    .refusal("Fleet", zone + "/" + instanceType);
        });
        return new ZoneTypeKey(zone, instanceType);
    }

    /** The number a body of {@code type} gives as {@code field}: {@code min} or more, else 400. */
    private static <T> int count(String body, Class<T> type, Function<T, Integer> field, String name, int min) {
        String shape = "{\"" + name + "\": n}";
        Integer n = field.apply(RequestBody.value(body, type, shape));
        if (n == null || n < min) {
            throw ApiException.badRequest(
                    "body must be " + shape + " with n " + (min == 0 ? "zero" : min) + " or more");
        }
        return n;
    }

    private static List<String> machineNames(String body) {
        List<String> machines = RequestBody.value(body, Machines.class, "{\"machines\": [\"<machine name>\", ...]}")
                .machines();
        if (machines == null || machines.isEmpty() || machines.stream().anyMatch(m -> m == null || m.isBlank())) {
            throw ApiException.badRequest(
                    "body must be {\"machines\": [\"<machine name>\", ...]} with at least one name");
        }
        return machines;
    }
}
