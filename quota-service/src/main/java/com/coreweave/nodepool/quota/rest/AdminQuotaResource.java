package com.coreweave.nodepool.quota.rest;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.topics.Topics;
import io.fabric8.kubernetes.api.model.Status;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Clock;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * Operators set and remove quotas ({@code quota-limit-set}, the quota-service is its single writer) and read every
 * org's quotas with usage. A write answers once the broker has it; the ledgers apply it right after, and pools waiting
 * for room are admitted by themselves. Setting the same quota again changes nothing.
 */
@Path("/admin/quotas")
@Produces(MediaType.APPLICATION_JSON)
public class AdminQuotaResource {

    @Inject
    CurrentCaller caller;

    @Inject
    RecordPublisher publisher;

    @Inject
    QuotaReads reads;

    @Inject
    Clock clock;

    @PUT
    @Path("/{org}/{zone}/{instanceType}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Set an org's quota of nodes of one instance type in one zone; body {\"maxNodes\": n}")
    public QuotaLimit set(
            @PathParam("org") String org,
            @PathParam("zone") String zone,
            @PathParam("instanceType") String instanceType,
            String body) {
        caller.admin();
        QuotaKey key = QuotaRequest.key(org, zone, instanceType);
        QuotaLimit limit = new QuotaLimit(org, zone, instanceType, QuotaRequest.maxNodes(body, key), clock.instant());
        publisher.publish(Topics.QUOTA_LIMIT_SET.name(), key.toString(), limit);
        return limit;
    }

    @DELETE
    @Path("/{org}/{zone}/{instanceType}")
    @Operation(summary = "Remove a quota; pools keep the nodes they hold but cannot scale up (NotSet)")
    public Status remove(
            @PathParam("org") String org,
            @PathParam("zone") String zone,
            @PathParam("instanceType") String instanceType) {
        caller.admin();
        QuotaKey key = QuotaRequest.key(org, zone, instanceType);
        publisher.publish(Topics.QUOTA_LIMIT_SET.name(), key.toString(), null);
        return Statuses.success("quota " + key + " removed");
    }

    @GET
    @Operation(summary = "Every org's quotas with usage and each pool's decision")
    public QuotaList list() {
        caller.admin();
        return QuotaList.of(null, reads.all());
    }
}
