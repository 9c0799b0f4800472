package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.OrgLabel;
import com.coreweave.nodepool.api.kube.CoreEvents;
import com.coreweave.nodepool.api.kube.CoreNodes;
import com.coreweave.nodepool.api.kube.ListVersion;
import com.coreweave.nodepool.api.messaging.LiveFeed;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.BackPressureFailure;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.RestMulti;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * Watches, as Kubernetes streams them: one JSON watch event after another on a chunked {@code application/json}
 * response, the objects as themselves or as Table rows (what {@code kubectl get -w} asks for). Pools come from
 * {@code nodepool-status}, core Events from {@code nodepool-events}, through the {@link LiveFeed}. Dashboards also get
 * the pools' events as Server-Sent Events, filterable like {@code kubectl events --types=Warning --watch}. Every watch
 * shows only what the caller may read.
 */
@Path("/")
public class WatchResource {

    @Inject
    Tenancy tenancy;

    @Inject
    LiveFeed feed;

    @Inject
    NodePoolResource pools;

    @Inject
    EventResource events;

    @Inject
    NodeResource nodes;

    /** Events an SSE stream of a slow reader may hold. */
    private static final int SSE_BUFFER = 1000;

    @Inject
    Listings listings;

    @Inject
    ApiSettings settings;

    @Inject
    WatchLimits limits;

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
        return start(
                LiveFeed.Stream.NODES,
                options,
                n -> n.getMetadata().getName(),
                listings.selection(nodes, options),
                renderer(nodes, options, n -> n),
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

    /**
     * The pools' events as Server-Sent Events for dashboards, filterable like {@code kubectl events --types=Warning
     * --watch}. At most {@value #SSE_BUFFER} events wait for a slow reader; past that the stream ends and the browser's
     * EventSource connects again.
     */
    @GET
    @Path("/apis/compute.coreweave.com/v1alpha1/watch/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<Event> events(
            @QueryParam("types") String types,
            @QueryParam("reason") String reason,
            @QueryParam("nodePool") String nodePool) {
        Set<String> wanted = types == null || types.isBlank()
                ? Set.of()
                : Arrays.stream(types.split(",")).map(String::trim).collect(Collectors.toSet());
        Predicate<LiveFeed.EventChange> filter =
                change -> (wanted.isEmpty() || wanted.contains(change.event().getType()))
                        && (reason == null || reason.equals(change.event().getReason()))
                        && (nodePool == null || nodePool.equals(change.key().pool()));
        String org = tenancy.readScope();
        AtomicReference<Runnable> end = new AtomicReference<>(() -> {});
        Runnable release = limits.admit(() -> end.get().run());
        return Multi.createFrom()
                .<Event>emitter(emitter -> {
                    end.set(emitter::complete);
                    Runnable stop = feed.watch(LiveFeed.Stream.EVENTS, org, null, change -> {
                        if (filter.test((LiveFeed.EventChange) change)) {
                            emitter.emit(((LiveFeed.EventChange) change).event());
                        }
                    });
                    emitter.onTermination(() -> {
                        stop.run();
                        release.run();
                    });
                })
                .onOverflow()
                .buffer(SSE_BUFFER)
                .onFailure(BackPressureFailure.class)
                .recoverWithCompletion()
                .select()
                .first(limits.timeout(null));
    }

    private RestMulti<byte[]> poolWatch(ListOptions options, String name) {
        Predicate<NodePool> selected = listings.selection(pools, options);
        Predicate<NodePool> named = name == null ? selected : selected.and(p -> name.equals(p.name()));
        boolean everyOrg = tenancy.readScope() == null;
        return start(
                LiveFeed.Stream.POOLS,
                options,
                everyOrg ? OrgLabel::identity : NodePool::name,
                named,
                renderer(pools, options, NodePoolResource::asResource),
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
                version -> NodePoolResource.asResource(
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
        return start(
                LiveFeed.Stream.EVENTS,
                options,
                e -> e.getMetadata().getName(),
                listings.selection(events, options),
                renderer(events, options, e -> e),
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

    /**
     * Opens a watch within the caller's limits ({@link WatchLimits}), subscribes it to the feed (from the client's list
     * version when it names one, else from now), reads the current objects, and streams; a version the feed's history
     * no longer reaches is 410 Gone, as Kubernetes answers, and the client lists again.
     */
    private <T> RestMulti<byte[]> start(
            LiveFeed.Stream stream,
            ListOptions options,
            Function<T, String> name,
            Predicate<T> selected,
            KubeWatch.Renderer<T> renderer,
            Function<String, T> gone,
            Function<Object, KubeWatch.Change<T>> change,
            Supplier<List<T>> current,
            Function<String, KubernetesResource> bookmark) {
        String version = options.resourceVersion;
        boolean fromNow = version == null || version.isEmpty() || version.equals("0");
        ListVersion from = fromNow ? null : ListVersion.parse(version, feed.partitionCount(stream));
        if (!fromNow && from == null) {
            throw gone(version, "it is not the resourceVersion of a list or a bookmark; list again");
        }
        Runnable[] stop = {() -> {}};
        WatchStream out = limits.open(() -> stop[0].run());
        KubeWatch<T> watch = new KubeWatch<>(name, selected, renderer, gone, out);
        Runnable unsubscribe = feed.watch(stream, tenancy.readScope(), from, c -> watch.onChange(change.apply(c)));
        if (unsubscribe == null) {
            out.complete();
            throw gone(version, "the changes after it are no longer kept; list again");
        }
        stop[0] = unsubscribe;
        Multi<byte[]> events;
        try {
            events = watch.events(current.get(), fromNow, limits.timeout(options.timeoutSeconds));
        } catch (RuntimeException e) {
            out.complete();
            unsubscribe.run();
            throw e;
        }
        if (options.allowWatchBookmarks && !options.table()) {
            var ticker = Multi.createFrom()
                    .ticks()
                    .every(settings.watchBookmarkInterval())
                    .subscribe()
                    .with(t -> feed.between(() ->
                            watch.bookmark(bookmark.apply(feed.version(stream).toString()))));
            events = events.onTermination().invoke(ticker::cancel);
        }
        return stream(events);
    }

    private static ApiException gone(String version, String why) {
        return new ApiException(
                Statuses.failure(410, "Expired", "too old resource version: " + version + " (" + why + ")", null));
    }

    /** Objects as themselves, or as Table rows: the column definitions go with the first event only. */
    private <T> KubeWatch.Renderer<T> renderer(
            Lister<T> lister,
            ListOptions options,
            Function<T, io.fabric8.kubernetes.api.model.KubernetesResource> plain) {
        if (!options.table()) {
            return plain::apply;
        }
        boolean[] first = {true};
        return object -> {
            var table = listings.table(lister, List.of(object), options, null, null);
            if (first[0]) {
                first[0] = false;
                return table;
            }
            return table.withoutColumns();
        };
    }

    /** A chunked application/json stream of watch events, one after another, as Kubernetes clients read it. */
    private static RestMulti<byte[]> stream(Multi<byte[]> events) {
        return RestMulti.fromMultiData(events)
                .encodeAsJsonArray(false)
                .status(200)
                .header("Content-Type", MediaType.APPLICATION_JSON)
                .build();
    }
}
