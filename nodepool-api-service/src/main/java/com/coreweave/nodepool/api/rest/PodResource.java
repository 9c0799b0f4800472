package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.kube.FieldSelector;
import com.coreweave.nodepool.api.kube.LabelSelector;
import com.coreweave.nodepool.api.kube.WorkloadPods;
import com.coreweave.nodepool.api.messaging.NodeChanges;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The pods of the caller's nodes, one per node whose workload is reported busy ({@link WorkloadPods}), and their
 * eviction ({@code policy/v1} {@code Eviction}): what {@code kubectl drain} lists, evicts and waits for, and
 * {@code describe node} lists. An eviction the workload's PodDisruptionBudget forbids now is refused with 429, as the
 * API server refuses it, and drain tries again until its {@code --timeout}; an eviction made tells the provisioner that
 * the node's workload is gone.
 */
// At the root, as the other core resources: a class at /api/v1 would take /api/v1 itself from DiscoveryResource.
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class PodResource {

    private static final Set<String> SELECTABLE =
            Set.of("metadata.name", "metadata.namespace", "spec.nodeName", "status.phase");

    @Inject
    Tenancy tenancy;

    @Inject
    PoolReads reads;

    @Inject
    NodeChanges changes;

    @GET
    @Path("/api/v1/pods")
    public PodList list(@BeanParam ListOptions options) {
        return listed(null, options);
    }

    @GET
    @Path("/api/v1/namespaces/{namespace}/pods")
    public PodList list(@PathParam("namespace") String namespace, @BeanParam ListOptions options) {
        return listed(namespace, options);
    }

    @GET
    @Path("/api/v1/namespaces/{namespace}/pods/{name}")
    public Pod get(@PathParam("namespace") String namespace, @PathParam("name") String name) {
        return find(tenancy.readScope(), namespace, name).pod();
    }

    /**
     * {@code POST .../pods/{name}/eviction}: 201 once the provisioner is told; 429 while the workload's disruption
     * budget allows no disruption; 404 for a pod that is not running (drain takes that as evicted).
     */
    @POST
    @Path("/api/v1/namespaces/{namespace}/pods/{name}/eviction")
    @Consumes(MediaType.WILDCARD)
    public Response evict(@PathParam("namespace") String namespace, @PathParam("name") String name, String body) {
        RequestBody.tree(body == null || body.isBlank() ? "{}" : body, "an Eviction");
        String org = tenancy.writer();
        Running running = find(org, namespace, name);
        if (!WorkloadPods.evictable(running.node().node())) {
            StatusDetails details = Statuses.details(name, null, "pods", null);
            details.setCauses(List.of(new StatusCause(
                    null,
                    "The disruption budget of " + name + " allows no disruption now (its workload reported "
                            + "disruptionsAllowed 0)",
                    "DisruptionBudget")));
            // No Retry-After, as the API server sends none here: client-go would retry on its own, past drain's
            // timeout.
            throw new ApiException(Statuses.failure(
                    429,
                    "TooManyRequests",
                    "Cannot evict pod as it would violate the pod's disruption budget.",
                    details));
        }
        PoolKey pool = running.node().pool();
        var view = reads.wholeView(pool).orElseThrow(() -> notFound(name));
        changes.evict(pool, view, running.node().node().name());
        var evicted = Statuses.success("pod " + name + " evicted");
        evicted.setCode(201);
        return Response.status(201).entity(evicted).build();
    }

    /**
     * {@code kubectl drain --disable-eviction} deletes the pod instead of evicting it: as on a cluster, a deletion
     * bypasses the disruption budget. The node's workload counts as gone; 200 with the pod as it was.
     */
    @DELETE
    @Path("/api/v1/namespaces/{namespace}/pods/{name}")
    public Pod delete(@PathParam("namespace") String namespace, @PathParam("name") String name) {
        Running running = find(tenancy.writer(), namespace, name);
        PoolKey pool = running.node().pool();
        var view = reads.wholeView(pool).orElseThrow(() -> notFound(name));
        changes.evict(pool, view, running.node().node().name());
        return running.pod();
    }

    private record Running(PoolReads.OwnedNode node, Pod pod) {}

    private Running find(String scope, String namespace, String name) {
        if (!WorkloadPods.NAMESPACE.equals(namespace) || !name.startsWith(WorkloadPods.PREFIX)) {
            throw notFound(name);
        }
        String node = name.substring(WorkloadPods.PREFIX.length());
        for (var entry : reads.nodes(scope).entrySet()) {
            if (entry.getValue().name().equals(node)) {
                PoolKey pool = PoolKey.ofPart(entry.getKey());
                var pod = WorkloadPods.of(entry.getValue(), pool.org());
                if (pod.isPresent()) {
                    return new Running(new PoolReads.OwnedNode(pool, entry.getValue()), pod.get());
                }
            }
        }
        throw notFound(name);
    }

    private PodList listed(String namespace, ListOptions options) {
        FieldSelector fields;
        LabelSelector labels;
        try {
            fields = FieldSelector.parse(options.fieldSelector, SELECTABLE);
            labels = LabelSelector.parse(options.labelSelector);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        List<Pod> pods = new ArrayList<>();
        reads.nodes(tenancy.readScope())
                .forEach(
                        (key, node) -> WorkloadPods.of(node, PoolKey.ofPart(key).org())
                                .filter(pod -> namespace == null
                                        || namespace.equals(pod.getMetadata().getNamespace()))
                                .filter(pod -> fields.test(WorkloadPods.fields(pod)))
                                .filter(pod -> labels.test(pod.getMetadata().getLabels()))
                                .ifPresent(pods::add));
        pods.sort(Comparator.comparing(p -> p.getMetadata().getName()));
        return new PodListBuilder()
                .withNewMetadata()
                .endMetadata()
                .withItems(pods)
                .build();
    }

    private static ApiException notFound(String name) {
        return new ApiException(Statuses.failure(
                404, "NotFound", "pods \"" + name + "\" not found", Statuses.details(name, null, "pods", null)));
    }
}
