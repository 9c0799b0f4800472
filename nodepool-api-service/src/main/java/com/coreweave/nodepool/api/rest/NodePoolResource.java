package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.LabelSelector;
import com.coreweave.nodepool.api.domain.ManifestValidator;
import com.coreweave.nodepool.api.domain.MergePatch;
import com.coreweave.nodepool.api.domain.NodeConfigurationBody;
import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.PreemptionHistory;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.KubeEvent;
import com.coreweave.nodepool.schema.resource.KubeStatus;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolList;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The NodePool resource of {@code compute.coreweave.com/v1alpha1}, Kubernetes style: writes go through
 * {@code nodepool-requested} and the pool processor ({@link PoolWrites}); reads come from the status aggregator's
 * store ({@link PoolReads}). Every call is scoped to the caller's org; another org's pool is a 404.
 */
@Path("/apis/compute.coreweave.com/v1alpha1/nodepools")
@Produces(MediaType.APPLICATION_JSON)
public class NodePoolResource {

  static final String YAML = "application/yaml";
  static final String MERGE_PATCH = "application/merge-patch+json";
  private static final int PATCH_ATTEMPTS = 5;

  @Inject
  CurrentCaller caller;

  @Inject
  PoolWrites writes;

  @Inject
  PoolReads reads;

  @Inject
  RecordPublisher publisher;

  @Inject
  Clock clock;

  @POST
  @Consumes({MediaType.APPLICATION_JSON, YAML, "application/x-yaml", "text/yaml"})
  public Response create(String body, @HeaderParam(HttpHeaders.CONTENT_TYPE) MediaType type,
                         @HeaderParam("Idempotency-Key") String idempotencyKey) {
    NodePool manifest = checked(ManifestBody.parse(body, type), null);
    PoolKey key = new PoolKey(caller.org(), manifest.name());
    RequestDecided decided = writes.submit(key, Operation.CREATE, manifest, idempotencyKey);
    return Response.status(decided.code()).entity(decided.nodePool()).build();
  }

  @GET
  public NodePoolList list(@QueryParam("labelSelector") String labelSelector,
                           @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    LabelSelector selector;
    try {
      selector = LabelSelector.parse(labelSelector);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("invalid labelSelector: " + e.getMessage());
    }
    List<NodePool> items = reads.views(caller.org(), authorization).stream()
        .map(PoolView::published)
        .filter(p -> selector.test(p.metadata().labels()))
        .sorted(Comparator.comparing(NodePool::name))
        .toList();
    return NodePoolList.of(items);
  }

  @GET
  @Path("/{name}")
  public NodePool get(@PathParam("name") String name, @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    return view(name, authorization).published();
  }

  @PUT
  @Path("/{name}")
  @Consumes({MediaType.APPLICATION_JSON, YAML, "application/x-yaml", "text/yaml"})
  public NodePool replace(@PathParam("name") String name, String body,
                          @HeaderParam(HttpHeaders.CONTENT_TYPE) MediaType type) {
    NodePool manifest = checked(ManifestBody.parse(body, type), name);
    PoolKey key = new PoolKey(caller.org(), name);
    return writes.submit(key, Operation.REPLACE, manifest, null).nodePool();
  }

  @PATCH
  @Path("/{name}")
  @Consumes({MERGE_PATCH, MediaType.APPLICATION_JSON})
  public NodePool patch(@PathParam("name") String name, String body,
                        @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    JsonNode patch = ManifestBody.parse(body, MediaType.APPLICATION_JSON_TYPE);
    if (!patch.isObject()) {
      throw ApiException.badRequest("a merge patch must be a JSON object");
    }
    boolean callerPrecondition = patch.path("metadata").has("resourceVersion");
    PoolKey key = new PoolKey(caller.org(), name);
    for (int attempt = 1; ; attempt++) {
      NodePool current = view(name, authorization).published();
      JsonNode merged = MergePatch.apply(writable(current), patch);
      NodePool manifest = checked(merged, name);
      try {
        return writes.submit(key, Operation.REPLACE, manifest, null).nodePool();
      } catch (ApiException e) {
        // Our own precondition lost a race with another writer: read again and re-apply the patch.
        if (callerPrecondition || e.status().code() != 409 || !"Conflict".equals(e.status().reason())
            || attempt == PATCH_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  @DELETE
  @Path("/{name}")
  public NodePool delete(@PathParam("name") String name,
                         @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    PoolKey key = new PoolKey(caller.org(), name);
    NodePool target = NodePool.of(ObjectMeta.named(name), null, null);
    return writes.submit(key, Operation.DELETE, target, null).nodePool();
  }

  @GET
  @Path("/{name}/events")
  public Map<String, Object> events(@PathParam("name") String name,
                                    @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    view(name, authorization);
    List<KubeEvent> events = reads.events(new PoolKey(caller.org(), name), authorization)
        .map(PoolEvents::events).orElse(List.of());
    return Map.of("apiVersion", "v1", "kind", "EventList", "items", events);
  }

  @GET
  @Path("/{name}/nodes")
  public Map<String, Object> nodes(@PathParam("name") String name,
                                   @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    List<Node> nodes = List.copyOf(view(name, authorization).nodes().values());
    return Map.of("apiVersion", "v1", "kind", "NodeList", "items", nodes);
  }

  /**
   * A platform team reports a node busy or idle (what {@code CWActive} and the scale-down strategies read); the
   * report goes to {@code node-activity-reported} like one published there directly.
   */
  @PUT
  @Path("/{name}/nodes/{node}/activity")
  @Consumes(MediaType.APPLICATION_JSON)
  public Response reportActivity(@PathParam("name") String name, @PathParam("node") String node, String body,
                                 @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    JsonNode report = ManifestBody.parse(body, MediaType.APPLICATION_JSON_TYPE);
    List<KubeStatus.Cause> causes = new java.util.ArrayList<>();
    JsonNode active = report.get("active");
    if (active == null || !active.isBoolean()) {
      causes.add(new KubeStatus.Cause(KubeStatus.Cause.REQUIRED, "must be true (busy) or false (idle)", "active"));
    }
    JsonNode grace = report.get("terminationGracePeriodSeconds");
    if (grace != null && !grace.isNull() && (!grace.canConvertToInt() || !grace.isIntegralNumber()
        || grace.intValue() < 0)) {
      causes.add(new KubeStatus.Cause(KubeStatus.Cause.INVALID, "must be a non-negative integer",
          "terminationGracePeriodSeconds"));
    }
    report.fieldNames().forEachRemaining(f -> {
      if (!f.equals("active") && !f.equals("terminationGracePeriodSeconds")) {
        causes.add(new KubeStatus.Cause(KubeStatus.Cause.INVALID, "unknown field \"" + f + "\"", f));
      }
    });
    if (!causes.isEmpty()) {
      throw ApiException.invalid("NodeActivity", node, causes);
    }
    if (!view(name, authorization).nodes().containsKey(node)) {
      throw ApiException.notFound("Node", node);
    }
    var reported = new NodeActivityReported(caller.org(), name, node, active.booleanValue(),
        grace == null || grace.isNull() ? null : grace.intValue(), clock.instant());
    publisher.publish(Topics.NODE_ACTIVITY_REPORTED.name(), new PoolKey(caller.org(), name).toString(), reported);
    return Response.accepted(reported).build();
  }

  /** Promotes the pool's pending node configuration ({@code status.pendingNodeConfiguration}); no body fields. */
  @POST
  @Path("/{name}/upgrade")
  public Response upgrade(@PathParam("name") String name, String body,
                          @HeaderParam("Idempotency-Key") String idempotencyKey,
                          @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    return requestConfiguration(name, Action.Upgrade, body, idempotencyKey, authorization);
  }

  /** Makes a revision of {@code status.nodeConfigurationRevisions} active again: {@code {"nodeProfile": ...}}. */
  @POST
  @Path("/{name}/rollback")
  public Response rollback(@PathParam("name") String name, String body,
                           @HeaderParam("Idempotency-Key") String idempotencyKey,
                           @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    return requestConfiguration(name, Action.Rollback, body, idempotencyKey, authorization);
  }

  /** Reconfigure-reboots the outdated nodes named in {@code {"nodes": [...]}}, or all of them without a list. */
  @POST
  @Path("/{name}/reconfigure")
  public Response reconfigure(@PathParam("name") String name, String body,
                              @HeaderParam("Idempotency-Key") String idempotencyKey,
                              @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    return requestConfiguration(name, Action.Reconfigure, body, idempotencyKey, authorization);
  }

  /**
   * Checks the request against the body rules and the pool as the status aggregator holds it, then hands it to the
   * provisioner on {@code nodepool-configuration-requested}; whether it can be applied (a pending configuration,
   * a known revision) is the provisioner's to decide. The body is read as JSON whatever its Content-Type, since a
   * bare {@code POST} without body or Content-Type is a complete upgrade or reconfigure.
   */
  private Response requestConfiguration(String name, Action action, String body, String idempotencyKey,
                                        String authorization) {
    JsonNode tree = body == null || body.isBlank() ? null
        : ManifestBody.parse(body, MediaType.APPLICATION_JSON_TYPE);
    NodeConfigurationBody request = NodeConfigurationBody.read(action, tree);
    if (!request.causes().isEmpty()) {
      throw ApiException.invalid(NodeConfigurationBody.KIND, name, request.causes());
    }
    PoolView view = view(name, authorization);
    ObjectMeta meta = view.published().metadata();
    if (meta.deletionTimestamp() != null) {
      throw ApiException.conflict(NodePool.KIND, name, "the NodePool is being deleted");
    }
    request.nodes().stream().filter(node -> !view.nodes().containsKey(node)).findFirst().ifPresent(node -> {
      throw ApiException.notFound("Node", node);
    });
    PoolKey key = new PoolKey(caller.org(), name);
    var requested = new NodeConfigurationRequested(NodeConfigurationBody.requestId(key, action, idempotencyKey),
        key.org(), key.pool(), meta.uid(), action, request.nodeProfile(), request.nodes(), clock.instant());
    publisher.publish(Topics.NODEPOOL_CONFIGURATION_REQUESTED.name(), key.toString(), requested);
    return Response.accepted(requested).build();
  }

  /** A spot pool's preemptions of the last 7 days, per day, and its interruption rate. */
  @GET
  @Path("/{name}/preemptions")
  public PreemptionHistory preemptions(@PathParam("name") String name,
                                       @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    return PreemptionHistory.of(view(name, authorization), clock.instant());
  }

  private PoolView view(String name, String authorization) {
    return reads.view(new PoolKey(caller.org(), name), authorization)
        .orElseThrow(() -> ApiException.notFound(NodePool.KIND, name));
  }

  /** The manifest, structurally valid, named as the path says (when the path names it). */
  private static NodePool checked(JsonNode manifest, String pathName) {
    List<KubeStatus.Cause> causes = ManifestValidator.validate(manifest);
    String name = manifest.path("metadata").path("name").asText(null);
    if (!causes.isEmpty()) {
      throw ApiException.invalid(NodePool.KIND, name == null ? pathName : name, causes);
    }
    if (pathName != null && !pathName.equals(name)) {
      throw ApiException.badRequest("metadata.name \"" + name + "\" does not match the name in the path \""
          + pathName + "\"");
    }
    try {
      return Json.mapper().treeToValue(manifest, NodePool.class);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw ApiException.badRequest("the manifest cannot be read: " + e.getOriginalMessage());
    }
  }

  /** The user-writable part of a stored pool, as a merge patch applies to it. */
  private static JsonNode writable(NodePool current) {
    ObjectNode tree = Json.mapper().valueToTree(current.withStatus(null));
    ObjectNode meta = (ObjectNode) tree.get("metadata");
    meta.remove(List.of("uid", "generation", "creationTimestamp", "deletionTimestamp"));
    return tree;
  }
}
