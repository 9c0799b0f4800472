package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.FieldSelector;
import com.coreweave.nodepool.api.domain.LabelSelector;
import com.coreweave.nodepool.schema.resource.KubeEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import io.fabric8.kubernetes.api.model.Event;
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
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
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
  Listings listings;

  @GET
  @Path("/apis/compute.coreweave.com/v1alpha1/watch/nodepools")
  @Blocking
  public RestMulti<WatchEvent> pools(@BeanParam ListOptions options) {
    return poolWatch(options, null);
  }

  @GET
  @Path("/apis/compute.coreweave.com/v1alpha1/watch/nodepools/{name}")
  @Blocking
  public RestMulti<WatchEvent> pool(@PathParam("name") String name, @BeanParam ListOptions options) {
    return poolWatch(options, name);
  }

  @GET
  @Path("/api/v1/watch/events")
  @Blocking
  public RestMulti<WatchEvent> coreEvents(@BeanParam ListOptions options) {
    return eventWatch(options);
  }

  @GET
  @Path("/api/v1/watch/namespaces/{namespace}/events")
  @Blocking
  public RestMulti<WatchEvent> namespacedEvents(@PathParam("namespace") String namespace,
                                                @BeanParam ListOptions options) {
    return eventWatch(options.inNamespace(namespace));
  }

  @GET
  @Path("/apis/compute.coreweave.com/v1alpha1/watch/events")
  @Produces(MediaType.SERVER_SENT_EVENTS)
  @RestStreamElementType(MediaType.APPLICATION_JSON)
  public Multi<KubeEvent> events(@QueryParam("types") String types, @QueryParam("reason") String reason,
                                 @QueryParam("nodePool") String nodePool) {
    Set<String> wanted = types == null || types.isBlank() ? Set.of()
        : Arrays.stream(types.split(",")).map(String::trim).collect(Collectors.toSet());
    Predicate<LiveFeed.EventChange> filter = change ->
        (wanted.isEmpty() || wanted.contains(change.event().type()))
            && (reason == null || reason.equals(change.event().reason()))
            && (nodePool == null || nodePool.equals(change.key().pool()));
    String org = tenancy.readScope();
    return Multi.createFrom().emitter(emitter -> {
      Runnable stop = feed.watchEvents(org, change -> {
        if (filter.test(change)) {
          emitter.emit(change.event());
        }
      });
      emitter.onTermination(stop);
    });
  }

  private RestMulti<WatchEvent> poolWatch(ListOptions options, String name) {
    Predicate<NodePool> selected = selection(pools, options);
    Predicate<NodePool> named = name == null ? selected : selected.and(p -> name.equals(p.name()));
    String org = tenancy.readScope();
    List<NodePool> current = pools.objects(options);
    return stream(KubeWatch.start(
        sink -> feed.watchPools(org, change -> sink.accept(new KubeWatch.Change<>(change.key().pool(),
            change.pool()))),
        () -> current, NodePool::name, named, renderer(pools, options, NodePoolResource::asResource),
        announce(options), timeout(options)));
  }

  private RestMulti<WatchEvent> eventWatch(ListOptions options) {
    String org = tenancy.readScope();
    List<Event> current = events.objects(options);
    return stream(KubeWatch.start(
        sink -> feed.watchEvents(org, change -> sink.accept(new KubeWatch.Change<>(change.event().name(),
            EventResource.core(change.key(), change.event())))),
        () -> current, e -> e.getMetadata().getName(), selection(events, options),
        renderer(events, options, e -> e), announce(options), timeout(options)));
  }

  private static <T> Predicate<T> selection(Lister<T> lister, ListOptions options) {
    LabelSelector labels = options.labels();
    FieldSelector fields = options.fields(lister.selectableFields());
    return item -> labels.test(lister.labels(item)) && fields.test(lister.fields(item));
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
      var table = listings.table(lister, List.of(object), options, null);
      if (first[0]) {
        first[0] = false;
        return table;
      }
      return table.withoutColumns();
    };
  }

  /** A watch from a list's version must not repeat that list's objects; one without a version starts with them. */
  private static boolean announce(ListOptions options) {
    return options.resourceVersion == null || options.resourceVersion.isEmpty()
        || options.resourceVersion.equals("0");
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
