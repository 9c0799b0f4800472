package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.NodeConfigurationBody;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.PreemptionHistory;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * What a NodePool offers beyond Kubernetes' verbs: its events and nodes as the pool sees them, node activity reports,
 * node configuration requests (upgrade, rollback, reconfigure) and its spot preemption history. Reads are scoped like
 * every read ({@link Tenancy}); requests are written for the caller's org.
 */
@Path("/apis/compute.coreweave.com/v1alpha1/nodepools")
@Produces(MediaType.APPLICATION_JSON)
public class NodePoolOperationsResource {

    @Inject
    Tenancy tenancy;

    @Inject
    PoolReads reads;

    @Inject
    RecordPublisher publisher;

    @Inject
    Clock clock;

    @GET
    @Path("/{name}/events")
    public Map<String, Object> events(@PathParam("name") String name) {
        List<Event> events = reads.events(key(name))
                .orElseThrow(() -> ApiException.notFound(NodePool.KIND, name))
                .events();
        return Map.of("apiVersion", "v1", "kind", "EventList", "items", events);
    }

    @GET
    @Path("/{name}/nodes")
    public Map<String, Object> nodes(@PathParam("name") String name) {
        List<Node> nodes = List.copyOf(view(name).nodes().values());
        return Map.of("apiVersion", "v1", "kind", "NodeList", "items", nodes);
    }

    /**
     * A platform team reports a node busy or idle (what {@code CWActive} and the scale-down strategies read); the
     * report goes to {@code node-activity-reported} like one published there directly, and is checked as one is there
     * ({@link ActivityReports}).
     */
    @PUT
    @Path("/{name}/nodes/{node}/activity")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response reportActivity(@PathParam("name") String name, @PathParam("node") String node, String body) {
        PoolKey key = new PoolKey(tenancy.writer(), name);
        NodeActivityReported reported = ActivityReports.read(key, node, body, clock.instant());
        if (!view(name).nodes().containsKey(node)) {
            throw ApiException.notFound("Node", node);
        }
        publisher.publish(Topics.NODE_ACTIVITY_REPORTED.name(), key.toString(), reported);
        return Response.accepted(reported).build();
    }

    /** Promotes the pool's pending node configuration ({@code status.pendingNodeConfiguration}); no body fields. */
    @POST
    @Path("/{name}/upgrade")
    public Response upgrade(
            @PathParam("name") String name, String body, @HeaderParam("Idempotency-Key") String idempotencyKey) {
        return requestConfiguration(name, Action.Upgrade, body, idempotencyKey);
    }

    /** Makes a revision of {@code status.nodeConfigurationRevisions} active again: {@code {"nodeProfile": ...}}. */
    @POST
    @Path("/{name}/rollback")
    public Response rollback(
            @PathParam("name") String name, String body, @HeaderParam("Idempotency-Key") String idempotencyKey) {
        return requestConfiguration(name, Action.Rollback, body, idempotencyKey);
    }

    /** Reconfigure-reboots the outdated nodes named in {@code {"nodes": [...]}}, or all of them without a list. */
    @POST
    @Path("/{name}/reconfigure")
    public Response reconfigure(
            @PathParam("name") String name, String body, @HeaderParam("Idempotency-Key") String idempotencyKey) {
        return requestConfiguration(name, Action.Reconfigure, body, idempotencyKey);
    }

    /**
     * Checks the request against the body rules and the pool as the status aggregator holds it, then hands it to the
     * provisioner on {@code nodepool-configuration-requested}; whether it can be applied (a pending configuration, a
     * known revision) is the provisioner's to decide. The body is read as JSON whatever its Content-Type, since a bare
     * {@code POST} without body or Content-Type is a complete upgrade or reconfigure.
     */
    private Response requestConfiguration(String name, Action action, String body, String idempotencyKey) {
        JsonNode tree =
                body == null || body.isBlank() ? null : RequestBody.tree(body, "a " + NodeConfigurationBody.KIND);
        NodeConfigurationBody request = NodeConfigurationBody.read(action, tree);
        if (!request.causes().isEmpty()) {
            throw ApiException.invalid(NodeConfigurationBody.KIND, name, request.causes());
        }
        PoolView view = view(name);
        ObjectMeta meta = view.published().metadata();
        if (meta.deletionTimestamp() != null) {
            throw ApiException.conflict(NodePool.KIND, name, "the NodePool is being deleted");
        }
        request.nodes().stream()
                .filter(node -> !view.nodes().containsKey(node))
                .findFirst()
                .ifPresent(node -> {
                    throw ApiException.notFound("Node", node);
                });
        PoolKey key = new PoolKey(tenancy.writer(), name);
        var requested = new NodeConfigurationRequested(
                NodeConfigurationBody.requestId(key, action, idempotencyKey),
                key.org(),
                key.pool(),
                meta.uid(),
                action,
                request.nodeProfile(),
                request.nodes(),
                clock.instant());
        publisher.publish(Topics.NODEPOOL_CONFIGURATION_REQUESTED.name(), key.toString(), requested);
        return Response.accepted(requested).build();
    }

    /** A spot pool's preemptions of the last 7 days, per day, and its interruption rate. */
    @GET
    @Path("/{name}/preemptions")
    public PreemptionHistory preemptions(@PathParam("name") String name) {
        return PreemptionHistory.of(view(name), clock.instant());
    }

    /** The pool with its nodes and preemptions. */
    private PoolView view(String name) {
        return reads.wholeView(key(name)).orElseThrow(() -> ApiException.notFound(NodePool.KIND, name));
    }

    /** The pool's key in the org the caller reads (an operator, who reads every org, must name a pool of one). */
    private PoolKey key(String name) {
        String org = tenancy.readScope();
        if (org == null) {
            org = reads.publishedPage(null, null, Integer.MAX_VALUE).keySet().stream()
                    .map(PoolKey::parse)
                    .filter(k -> k.pool().equals(name))
                    .map(PoolKey::org)
                    .findFirst()
                    .orElseThrow(() -> ApiException.notFound(NodePool.KIND, name));
        }
        return new PoolKey(org, name);
    }
}
