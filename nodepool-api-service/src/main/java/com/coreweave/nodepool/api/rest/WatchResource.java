package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.OrgLabel;
import com.coreweave.nodepool.api.kube.CoreEvents;
import com.coreweave.nodepool.api.kube.CoreNodes;
import com.coreweave.nodepool.api.messaging.LiveFeed;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.function.Predicate;
import org.jboss.resteasy.reactive.RestMulti;

/**
 * Watches, as Kubernetes streams them: one JSON watch event after another on a chunked {@code application/json}
 * response, the objects as themselves or as Table rows (what {@code kubectl get -w} asks for). Pools come from
 * {@code nodepool-status}, core Events from {@code nodepool-events}, through the {@link LiveFeed}. Dashboards also get
 * the pools' events as Server-Sent Events ({@link EventStreamResource}). Every watch shows only what the caller may
 * read.
 */
@Path("/")
public class WatchResource {

    @Inject
    Tenancy tenancy;

    @Inject
    FeedWatches watches;

    @Inject
    PoolLister pools;

    @Inject
    EventResource events;

    @Inject
    NodeResource nodes;

    @Inject
    Listings listings;

    @Inject
    PoolReads reads;

    @GET
    @Path("/apis/compute.coreweave.com/v1alpha1/watch/nodepools")
    @Blocking
    @Produces(MediaType.APPLICATION_JSON)
    public RestMulti<byte[]> pools(@BeanParam ListOptions options) {
        return poolWatch(options, null);
    }

    @GET
    @Path("/apis/compute.coreweave.com/v1alpha1/watch/nodepools/{name}")
    @Blocking
    @Produces(MediaType.APPLICATION_JSON)
    public RestMulti<byte[]> pool(@PathParam("name") String name, @BeanParam ListOptions options) {
        return poolWatch(options, name);
    }

    @GET
    @Path("/api/v1/watch/events")
    @Blocking
    @Produces(MediaType.APPLICATION_JSON)
    public RestMulti<byte[]> coreEvents(@BeanParam ListOptions options) {
        return eventWatch(options);
    }

    @GET
    @Path("/api/v1/watch/namespaces/{namespace}/events")
    @Blocking
    @Produces(MediaType.APPLICATION_JSON)
    public RestMulti<byte[]> namespacedEvents(
            @PathParam("namespace") String namespace, @BeanParam ListOptions options) {
        return eventWatch(options.inNamespace(namespace));
    }

    /**
     * Nodes come from the provisioner's node facts, which the live feed follows like the pools' status: a change of a
     * node reaches its watchers as it happens, and a list of nodes carries that feed's position as its version.
     */
    @GET
    @Path("/api/v1/watch/nodes")
    @Blocking
    @Produces(MediaType.APPLICATION_JSON)
    public RestMulti<byte[]> nodes(@BeanParam ListOptions options) {
        return watches.start(
                LiveFeed.Stream.NODES,
                options,
                n -> n.getMetadata().getName(),
                listings.selection(nodes, options),
                watches.renderer(nodes, options, n -> n),
                name -> new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build(),
                change -> {
                    var node = (LiveFeed.NodeChange) change;
                    String name = node.fact().node().name();
                    // A node that left is shown as it was last: a Table row needs the whole node.
                    return new KubeWatch.Change<>(
                            name,
                            CoreNodes.of(
                                    node.fact().node(),
                                    node.key().org(),
                                    reads.instanceType(node.fact().pool().instanceType())
                                            .orElse(null)),
                            node.removed());
                },
                () -> nodes.objects(options),
                version -> new NodeBuilder()
                        .withNewMetadata()
                        .withResourceVersion(version)
                        .endMetadata()
                        .build());
    }

    private RestMulti<byte[]> poolWatch(ListOptions options, String name) {
        Predicate<NodePool> selected = listings.selection(pools, options);
        Predicate<NodePool> named = name == null ? selected : selected.and(p -> name.equals(p.name()));
        boolean everyOrg = tenancy.readScope() == null;
        return watches.start(
                LiveFeed.Stream.POOLS,
                options,
                everyOrg ? OrgLabel::identity : NodePool::name,
                named,
                watches.renderer(pools, options, PoolLister::asResource),
                identity -> gonePool(identity, everyOrg),
                change -> {
                    var pool = (LiveFeed.PoolChange) change;
                    String identity =
                            everyOrg ? pool.key().toString() : pool.key().pool();
                    return new KubeWatch.Change<>(
                            identity,
                            pool.pool() == null || !everyOrg
                                    ? pool.pool()
                                    : OrgLabel.shown(pool.pool(), pool.key().org()));
                },
                () -> pools.objects(options),
                version -> PoolLister.asResource(
                        NodePool.of(new ObjectMeta(null, null, null, version, null, null, null, null), null, null)));
    }

    /** What a DELETED event shows of a pool whose status was tombstoned: its name (and org, for an operator). */
    private static NodePool gonePool(String identity, boolean everyOrg) {
        if (!everyOrg) {
            return NodePool.of(ObjectMeta.named(identity), null, null);
        }
        PoolKey key = PoolKey.parse(identity);
        return OrgLabel.shown(NodePool.of(ObjectMeta.named(key.pool()), null, null), key.org());
    }

    private RestMulti<byte[]> eventWatch(ListOptions options) {
        return watches.start(
                LiveFeed.Stream.EVENTS,
                options,
                e -> e.getMetadata().getName(),
                listings.selection(events, options),
                watches.renderer(events, options, e -> e),
                name -> new EventBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .build(),
                change -> {
                    var event = (LiveFeed.EventChange) change;
                    return new KubeWatch.Change<>(event.event().getMetadata().getName(), CoreEvents.of(event.event()));
                },
                () -> events.objects(options),
                version -> new EventBuilder()
                        .withNewMetadata()
                        .withResourceVersion(version)
                        .endMetadata()
                        .build());
    }
}
