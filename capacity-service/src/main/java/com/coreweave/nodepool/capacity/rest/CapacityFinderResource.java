package com.coreweave.nodepool.capacity.rest;

import com.coreweave.nodepool.capacity.domain.Availability;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.InstanceType;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The Capacity Finder: where {@code nodes} nodes of an instance type are available now, zone by zone, best first, for a
 * {@code default} pool and for a {@code spot} pool. Open to any token; it shows counts, never pools.
 */
@Path("/capacity/availability")
@Produces(MediaType.APPLICATION_JSON)
public class CapacityFinderResource {

    /** The answer: the question and every zone the type is offered in, best first. */
    public record Answer(
            String instanceType, int nodes, boolean spotOffered, List<Availability> zones, Instant checkedAt) {}

    @Inject
    Catalogue catalogue;

    @Inject
    LedgerReads reads;

    @Inject
    CurrentCaller caller;

    @Inject
    Clock clock;

    @GET
    public Answer find(@QueryParam("instanceType") String instanceType, @QueryParam("nodes") String nodes) {
        caller.get();
        if (instanceType == null || instanceType.isBlank()) {
            throw ApiException.badRequest(
                    "query parameter instanceType is required, e.g. ?instanceType=gd-8xa100-i128" + "&nodes=4");
        }
        int wanted = nodeCount(nodes);
        InstanceType type =
                catalogue.find(instanceType).orElseThrow(() -> ApiException.notFound("InstanceType", instanceType));
        return new Answer(type.name(), wanted, !type.superchip(), reads.availability(type, wanted), clock.instant());
    }

    private static int nodeCount(String nodes) {
        if (nodes == null || nodes.isBlank()) {
            throw ApiException.badRequest("query parameter nodes is required: how many nodes you need (1 or more)");
        }
        try {
            int count = Integer.parseInt(nodes.trim());
            if (count < 1) {
                throw ApiException.badRequest("query parameter nodes must be 1 or more, not " + count);
            }
            return count;
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("query parameter nodes must be a whole number, not '" + nodes + "'");
        }
    }
}
