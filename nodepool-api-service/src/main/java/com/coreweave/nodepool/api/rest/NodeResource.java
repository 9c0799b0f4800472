package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.ViewPart;
import com.coreweave.nodepool.api.kube.CoreNodes;
import com.coreweave.nodepool.api.kube.NodeEdits;
import com.coreweave.nodepool.api.kube.NodePatches;
import com.coreweave.nodepool.api.kube.NodeTable;
import com.coreweave.nodepool.api.kube.TableConvertor;
import com.coreweave.nodepool.api.messaging.LiveFeed;
import com.coreweave.nodepool.api.messaging.NodeChanges;
import com.coreweave.nodepool.api.messaging.NodeDeletions;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The core {@code v1} Nodes of the caller's pools ({@code kubectl get nodes -l compute.coreweave.com/node-pool=...},
 * {@code kubectl describe node}), read from the pools' views; {@code kubectl delete node} asks the node's pool to
 * replace it, and {@code kubectl cordon}, {@code label}, {@code annotate} and {@code taint} patch what a user may set
 * on it.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class NodeResource implements CoreLister<Node> {

    private static final TableConvertor<Node> TABLE = new NodeTable();

    @Inject
    Tenancy tenancy;

    @Inject
    PoolReads reads;

    @Inject
    Listings listings;

    @Inject
    NodeDeletions deletions;

    @Inject
    NodeChanges changes;

    @Inject
    LiveFeed feed;

    @GET
    @Path("/api/v1/nodes")
    public Object list(@BeanParam ListOptions options) {
        // The version of the node facts' feed, which a watch of nodes resumes from.
        return listings.list(this, options, feed.version(LiveFeed.Stream.NODES).toString());
    }

    @GET
    @Path("/api/v1/nodes/{name}")
    public Object get(@PathParam("name") String name, @BeanParam ListOptions options) {
        Node node = objects(options).stream()
                .filter(n -> n.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> notFound(name));
        return listings.one(this, node, options);
    }

    /** What describe node asks for a node's heartbeat: the simulated nodes have no kubelet, so no lease. */
    @GET
    @Path("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}")
    public Object lease(@PathParam("name") String name) {
        throw new ApiException(Statuses.failure(
                404,
                "NotFound",
                "leases.coordination.k8s.io \"" + name
                        + "\" not found: the simulated nodes have no kubelet, so no heartbeat lease",
                null));
    }

    /**
     * {@code kubectl delete node}: the node's pool drains and removes it and gets a replacement, through the same
     * request as deleting it under its NodePool; 202 with the node as it is now, since it leaves once drained.
     */
    @DELETE
    @Path("/api/v1/nodes/{name}")
    public Response delete(@PathParam("name") String name, @BeanParam ListOptions options) {
        String org = tenancy.writer();
        for (String key : reads.nodes(org).keySet()) {
            if (key.endsWith("/" + ViewPart.NODES + name)) {
                PoolKey pool = PoolKey.ofPart(key);
                PoolView view = reads.wholeView(pool).orElseThrow(() -> notFound(name));
                var node = deletions.request(pool, view, name);
                return Response.accepted(CoreNodes.of(node, org, instanceType(node)))
                        .build();
            }
        }
        throw notFound(name);
    }

    /**
     * {@code kubectl cordon}, {@code uncordon}, {@code label node}, {@code annotate node} and {@code taint node}: a
     * strategic merge, merge or JSON patch of the node, of which only the user's labels, annotations, taints and cordon
     * may change ({@link NodeEdits}). The change goes to the provisioner, which owns the node, and the answer is the
     * node with the patch applied: the provisioner applies every change the api-service let through, and the node's
     * view shows it once its fact comes back (a GET right after may still show the node as it was).
     */
    @PATCH
    @Path("/api/v1/nodes/{name}")
    @Consumes(MediaType.WILDCARD)
    public Response patch(
            @PathParam("name") String name,
            String body,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) MediaType type,
            @BeanParam WriteOptions options) {
        String org = tenancy.writer();
        PoolReads.OwnedNode found = reads.node(org, name).orElseThrow(() -> notFound(name));
        PoolView view = reads.wholeView(found.pool()).orElseThrow(() -> notFound(name));
        JsonNode current = Json.mapper().valueToTree(CoreNodes.of(found.node(), org, instanceType(found.node())));
        JsonNode patched =
                NodePatches.apply(current, body, type == null ? "" : type.getType() + "/" + type.getSubtype(), name);
        String precondition = patched.path("metadata").path("resourceVersion").asText("");
        String version = current.path("metadata").path("resourceVersion").asText();
        if (!precondition.isEmpty() && !precondition.equals(version)) {
            throw ApiException.conflict(
                    "nodes",
                    name,
                    "the object has been modified; please apply your changes to the latest version and try again");
        }
        NodeEdits.Edit edit = NodeEdits.between(current, patched, poolMarks(view), name);
        if (!edit.empty() && !options.dryRun()) {
            changes.edit(found.pool(), view, name, edit);
        }
        boolean userCordon =
                edit.unschedulable() != null ? edit.unschedulable() : CoreNodes.cordonedByUser(found.node());
        JsonNode shown = NodeEdits.shown(patched, CoreNodes.cordonedByPlatform(found.node()) || userCordon);
        return Response.ok(shown).build();
    }

    /** What the node's pool sets on its nodes from its spec, which only the pool's spec changes. */
    private static NodeEdits.PoolMarks poolMarks(PoolView view) {
        var spec = view.accepted().inForce().nodePool().spec();
        return new NodeEdits.PoolMarks(
                spec.nodeLabels() == null ? Set.of() : spec.nodeLabels().keySet(),
                spec.nodeAnnotations() == null
                        ? Set.of()
                        : spec.nodeAnnotations().keySet(),
                spec.nodeTaints() == null
                        ? Set.of()
                        : spec.nodeTaints().stream().map(Taint::key).collect(Collectors.toSet()));
    }

    private static ApiException notFound(String name) {
        return new ApiException(Statuses.failure(
                404, "NotFound", "nodes \"" + name + "\" not found", Statuses.details(name, null, "nodes", null)));
    }

    @Override
    public List<Node> objects(ListOptions options) {
        return nodes(tenancy.readScope());
    }

    /** The nodes of every pool of the org {@code scope} (of every org when null), sorted by name. */
    List<Node> nodes(String scope) {
        List<Node> nodes = new ArrayList<>();
        reads.nodes(scope)
                .forEach((key, node) ->
                        nodes.add(CoreNodes.of(node, PoolKey.ofPart(key).org(), instanceType(node))));
        nodes.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        return nodes;
    }

    /** The catalogue's entry for the node's instance type, which it carries as a label. */
    private InstanceType instanceType(com.coreweave.nodepool.schema.resource.Node node) {
        var labels = node.metadata().labels();
        return reads.instanceType(
                        labels == null
                                ? null
                                : labels.get(com.coreweave.nodepool.schema.resource.Node.LABEL_INSTANCE_TYPE))
                .orElse(null);
    }

    @Override
    public Map<String, String> fields(Node node) {
        return NodeTable.fields(node);
    }

    @Override
    public Set<String> selectableFields() {
        return Set.of("metadata.name", "spec.unschedulable");
    }

    @Override
    public NodeList listOf(List<Node> items, String resourceVersion, String continueToken) {
        return new NodeListBuilder()
                .withItems(items)
                .withMetadata(CoreLister.listMeta(resourceVersion, continueToken))
                .build();
    }

    @Override
    public boolean resumable(String version) {
        return feed.resumable(LiveFeed.Stream.NODES, version);
    }

    @Override
    public TableConvertor<Node> table() {
        return TABLE;
    }
}
