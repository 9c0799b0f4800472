package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.CoreEvents;
import com.coreweave.nodepool.api.domain.ListVersion;
import com.coreweave.nodepool.api.domain.OrgLabel;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.RestMulti;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * Watches, as Kubernetes streams them: one JSON watch event after another on a chunked {@code application/json}
 * response, the objects as themselves or as Table rows (what {@code kubectl get -w} asks for). Pools come from
 * {@code nodepool-status}, core Events from {@code nodepool-events}, through the {@link LiveFeed}. Dashboards also
 * get the pools' events as Server-Sent Events, filterable like {@code kubectl events --types=Warning --watch}.
 * Every watch shows only what the caller may read.
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

  private static final long NODE_POLL_MILLIS = 1000;

  @Inject
  Listings listings;

  @Inject
  ApiSettings settings;

  @GET
  @Path("/apis/compute.coreweave.com/v1alpha1/watch/nodepools")
  @Blocking
  @Produces(MediaType.APPLICATION_JSON)
  public RestMulti<WatchEvent> pools(@BeanParam ListOptions options) {
    return poolWatch(options, null);
  }

  @GET
  @Path("/apis/compute.coreweave.com/v1alpha1/watch/nodepools/{name}")
  @Blocking
  @Produces(MediaType.APPLICATION_JSON)
  public RestMulti<WatchEvent> pool(@PathParam("name") String name, @BeanParam ListOptions options) {
    return poolWatch(options, name);
  }

  @GET
  @Path("/api/v1/watch/events")
  @Blocking
  @Produces(MediaType.APPLICATION_JSON)
  public RestMulti<WatchEvent> coreEvents(@BeanParam ListOptions options) {
    return eventWatch(options);
  }

  @GET
  @Path("/api/v1/watch/namespaces/{namespace}/events")
  @Blocking
  @Produces(MediaType.APPLICATION_JSON)
  public RestMulti<WatchEvent> namespacedEvents(@PathParam("namespace") String namespace,
                                                @BeanParam ListOptions options) {
    return eventWatch(options.inNamespace(namespace));
  }

  /**
   * Nodes have no topic of their own (they live in their pools' views), so their watch compares the caller's nodes
   * every {@value #NODE_POLL_MILLIS} ms and streams what changed: enough for kubectl's waits.
   */
  @GET
  @Path("/api/v1/watch/nodes")
  @Blocking
  @Produces(MediaType.APPLICATION_JSON)
  public RestMulti<WatchEvent> nodes(@BeanParam ListOptions options) {
    String scope = tenancy.readScope();
    String authorization = options.authorization;
    KubeWatch<Node> watch = new KubeWatch<>(n -> n.getMetadata().getName(), listings.selection(nodes, options),
        renderer(nodes, options, n -> n));
    Map<String, Node> last = new HashMap<>();
    nodes.nodes(scope, authorization).forEach(n -> last.put(n.getMetadata().getName(), n));
    var poller = Multi.createFrom().ticks().every(Duration.ofMillis(NODE_POLL_MILLIS)).subscribe().with(t -> {
      Map<String, Node> now = new HashMap<>();
      nodes.nodes(scope, authorization).forEach(n -> now.put(n.getMetadata().getName(), n));
      now.forEach((name, node) -> {
        if (!node.equals(last.get(name))) {
          watch.onChange(new KubeWatch.Change<>(name, node));
        }
      });
      last.keySet().stream().filter(name -> !now.containsKey(name)).toList()
          .forEach(name -> watch.onChange(new KubeWatch.Change<>(name, null)));
      last.clear();
      last.putAll(now);
    }, failure -> { });
    String version = options.resourceVersion;
    boolean fromNow = version == null || version.isEmpty() || version.equals("0");
    return stream(watch.events(List.copyOf(last.values()), fromNow, poller::cancel, timeout(options)));
  }

  @GET
  @Path("/apis/compute.coreweave.com/v1alpha1/watch/events")
  @Produces(MediaType.SERVER_SENT_EVENTS)
  @RestStreamElementType(MediaType.APPLICATION_JSON)
  public Multi<Event> events(@QueryParam("types") String types, @QueryParam("reason") String reason,
                                 @QueryParam("nodePool") String nodePool) {
    Set<String> wanted = types == null || types.isBlank() ? Set.of()
        : Arrays.stream(types.split(",")).map(String::trim).collect(Collectors.toSet());
    Predicate<LiveFeed.EventChange> filter = change ->
        (wanted.isEmpty() || wanted.contains(change.event().getType()))
            && (reason == null || reason.equals(change.event().getReason()))
            && (nodePool == null || nodePool.equals(change.key().pool()));
    String org = tenancy.readScope();
    return Multi.createFrom().emitter(emitter -> {
      Runnable stop = feed.watch(LiveFeed.Stream.EVENTS, org, null, change -> {
        if (filter.test((LiveFeed.EventChange) change)) {
          emitter.emit(((LiveFeed.EventChange) change).event());
        }
      });
      emitter.onTermination(stop);
    });
  }

  private RestMulti<WatchEvent> poolWatch(ListOptions options, String name) {
    Predicate<NodePool> selected = listings.selection(pools, options);
    Predicate<NodePool> named = name == null ? selected : selected.and(p -> name.equals(p.name()));
    boolean everyOrg = tenancy.readScope() == null;
    KubeWatch<NodePool> watch = new KubeWatch<>(everyOrg ? OrgLabel::identity : NodePool::name, named,
        renderer(pools, options, NodePoolResource::asResource));
    return start(watch, LiveFeed.Stream.POOLS, options, change -> {
      var pool = (LiveFeed.PoolChange) change;
      String identity = everyOrg ? pool.key().toString() : pool.key().pool();
      return new KubeWatch.Change<>(identity, pool.pool() == null || !everyOrg ? pool.pool()
          : OrgLabel.shown(pool.pool(), pool.key().org()));
    }, () -> pools.objects(options), version -> NodePoolResource.asResource(NodePool.of(
        new ObjectMeta(null, null, null, version, null, null, null, null), null, null)));
  }

  private RestMulti<WatchEvent> eventWatch(ListOptions options) {
    KubeWatch<Event> watch = new KubeWatch<>(e -> e.getMetadata().getName(), listings.selection(events, options),
        renderer(events, options, e -> e));
    return start(watch, LiveFeed.Stream.EVENTS, options, change -> {
      var event = (LiveFeed.EventChange) change;
      return new KubeWatch.Change<>(event.event().getMetadata().getName(), CoreEvents.of(event.event()));
    }, () -> events.objects(options), version -> new EventBuilder().withNewMetadata().withResourceVersion(version)
        .endMetadata().build());
  }

  /**
   * Subscribes the watch to the feed (from the client's list version when it names one, else from now), reads the
   * current objects, and streams; a version the feed's history no longer reaches is 410 Gone, as Kubernetes
   * answers, and the client lists again.
   */
  private <T> RestMulti<WatchEvent> start(KubeWatch<T> watch, LiveFeed.Stream stream, ListOptions options,
                                          Function<Object, KubeWatch.Change<T>> change, Supplier<List<T>> current,
                                          Function<String, KubernetesResource> bookmark) {
    String version = options.resourceVersion;
    boolean fromNow = version == null || version.isEmpty() || version.equals("0");
    ListVersion from = fromNow ? null : ListVersion.parse(version, feed.partitionCount(stream));
    if (!fromNow && from == null) {
      throw gone(version, "it is not the resourceVersion of a list or a bookmark; list again");
    }
    Runnable stop = feed.watch(stream, tenancy.readScope(), from, c -> watch.onChange(change.apply(c)));
    if (stop == null) {
      throw gone(version, "the changes after it are no longer kept; list again");
    }
    Multi<WatchEvent> events;
    try {
      events = watch.events(current.get(), fromNow, stop, timeout(options));
    } catch (RuntimeException e) {
      stop.run();
      throw e;
    }
    if (options.allowWatchBookmarks && !options.table()) {
      var ticker = Multi.createFrom().ticks().every(settings.watchBookmarkInterval()).subscribe().with(t ->
          feed.between(() -> watch.bookmark(bookmark.apply(feed.version(stream).toString()))));
      events = events.onTermination().invoke(ticker::cancel);
    }
    return stream(events);
  }

  private static ApiException gone(String version, String why) {
    return new ApiException(Statuses.failure(410, "Expired", "too old resource version: " + version + " ("
        + why + ")", null));
  }

  /** Objects as themselves, or as Table rows: the column definitions go with the first event only. */
  private <T> KubeWatch.Renderer<T> renderer(Lister<T> lister, ListOptions options,
                                            java.util.function.Function<T, io.fabric8.kubernetes.api.model
                                                .KubernetesResource> plain) {
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

  private static Duration timeout(ListOptions options) {
    return options.timeoutSeconds == null || options.timeoutSeconds <= 0 ? null
        : Duration.ofSeconds(options.timeoutSeconds);
  }

  /** A chunked application/json stream of watch events, one after another, as Kubernetes clients read it. */
  private static RestMulti<WatchEvent> stream(Multi<WatchEvent> events) {
    return RestMulti.fromMultiData(events).encodeAsJsonArray(false).status(200)
        .header("Content-Type", MediaType.APPLICATION_JSON).build();
  }
}
