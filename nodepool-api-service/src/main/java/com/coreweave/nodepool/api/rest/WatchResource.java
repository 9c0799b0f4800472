package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.LabelSelector;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.KubeEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.WatchEvent;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Multi;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * Live streams for dashboards. Pools: a Kubernetes watch, one JSON watch event per line ({@code ?watch=true} on the
 * list or the item path lands here, as does the {@code /watch/} path Kubernetes also serves). Events: Server-Sent
 * Events, filterable like {@code kubectl events --types=Warning --watch}. Both only show the caller's org.
 */
@Path("/apis/compute.coreweave.com/v1alpha1/watch")
public class WatchResource {

  @Inject
  CurrentCaller caller;

  @Inject
  LiveFeed feed;

  @Inject
  PoolReads reads;

  @GET
  @Path("/nodepools")
  @Blocking
  @Produces("application/x-ndjson")
  @RestStreamElementType(MediaType.APPLICATION_JSON)
  public Multi<WatchEvent<NodePool>> pools(@QueryParam("labelSelector") String labelSelector,
                                           @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    LabelSelector selector;
    try {
      selector = LabelSelector.parse(labelSelector);
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("invalid labelSelector: " + e.getMessage());
    }
    String org = caller.org();
    return PoolWatch.start(feed, org, pool -> selector.test(pool.metadata().labels()),
        () -> reads.views(org, authorization).stream().map(PoolView::published).toList());
  }

  @GET
  @Path("/nodepools/{name}")
  @Blocking
  @Produces("application/x-ndjson")
  @RestStreamElementType(MediaType.APPLICATION_JSON)
  public Multi<WatchEvent<NodePool>> pool(@PathParam("name") String name,
                                          @HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
    String org = caller.org();
    return PoolWatch.start(feed, org, pool -> name.equals(pool.name()), () -> reads
        .view(new PoolKey(org, name), authorization).map(PoolView::published).stream().toList());
  }

  @GET
  @Path("/events")
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
    String org = caller.org();
    return Multi.createFrom().emitter(emitter -> {
      Runnable stop = feed.watchEvents(org, change -> {
        if (filter.test(change)) {
          emitter.emit(change.event());
        }
      });
      emitter.onTermination(stop);
    });
  }
}
