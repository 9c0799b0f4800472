package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.messaging.WorkloadRequests;
import com.coreweave.nodepool.api.streams.StoreNames;
import com.coreweave.nodepool.kit.reads.InteractiveQueries;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import io.fabric8.kubernetes.api.model.StatusCause;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pending workloads through the API, the twin of {@code workload-pending}: {@code POST} publishes a
 * {@code WorkloadPending} of the caller's org (202 with the workload), {@code DELETE} a {@code WorkloadGone};
 * {@code GET} answers the demand planner's verdicts ({@code workload-status}, a global store every instance holds),
 * each read limited to the caller's org.
 */
@Path("/apis/compute.coreweave.com/v1alpha1/workloads")
@Produces(MediaType.APPLICATION_JSON)
public class WorkloadResource {

    /** A workload's body: its every field is bounded well within this (docs/autoscaling.md). */
    static final int MAX_BODY_BYTES = 64 * 1024;

    @Inject
    Tenancy tenancy;

    @Inject
    WorkloadRequests requests;

    @Inject
    InteractiveQueries queries;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(String body) {
        String org = tenancy.writer();
        if (body != null && body.getBytes(StandardCharsets.UTF_8).length > MAX_BODY_BYTES) {
            throw ApiException.invalid(
                    WorkloadRequests.KIND,
                    "",
                    List.of(new StatusCause(
                            "", "a workload's body may be at most " + MAX_BODY_BYTES + " bytes", "FieldValueTooLong")));
        }
        Workload workload = RequestBody.value(body, Workload.class, "a Workload");
        return Response.accepted(requests.pending(org, workload)).build();
    }

    @DELETE
    @Path("/{name}")
    public Response delete(@PathParam("name") String name) {
        String org = tenancy.writer();
        WorkloadStatus status = find(org, name).orElseThrow(() -> ApiException.notFound(WorkloadRequests.KIND, name));
        requests.gone(org, name);
        return Response.accepted(status).build();
    }

    @GET
    public Map<String, Object> list() {
        String scope = tenancy.readScope();
        List<WorkloadStatus> items = List.copyOf(queries.<WorkloadStatus>localEntries(
                        StoreNames.WORKLOAD_STATUSES, scope == null ? null : PoolKey.orgPrefix(scope))
                .values());
        return Map.of("kind", "WorkloadList", "items", items);
    }

    @GET
    @Path("/{name}")
    public WorkloadStatus get(@PathParam("name") String name) {
        String scope = tenancy.readScope();
        String org = scope == null ? tenancy.writer() : scope;
        return find(org, name).orElseThrow(() -> ApiException.notFound(WorkloadRequests.KIND, name));
    }

    private Optional<WorkloadStatus> find(String org, String name) {
        if (name.contains("/")) {
            return Optional.empty();
        }
        Optional<WorkloadStatus> found =
                queries.localGet(StoreNames.WORKLOAD_STATUSES, new PoolKey(org, name).toString());
        return found.filter(status -> tenancy.mayRead(status.org()));
    }
}
